/** How a host's connection state is said, in the Hosts view's summary table and on each host's card alike. */
import type { HostStatus } from '../../shared/hosts.js';

/** The words for each connection state (the badge's text). */
export const HOST_STATE_TEXT: Record<HostStatus['state'], string> = {
  connecting: 'connecting',
  connected: 'connected',
  reconnecting: 'reconnecting',
  'auth-needed': 'sign-in needed',
  'host-key-unknown': 'host key unknown',
  error: 'error',
};
