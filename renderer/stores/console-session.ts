/**
 * A proxy's serial console as the console panel drives it: a session opened, written to and
 * closed, and its output and end as events. The terminal holds what it shows; no store does.
 */
import type { ChannelOutput, EventPayload } from '../../shared/ipc.js';
import { storeApi } from './store-api.js';

/** Opens a console session on a proxy (`force` takes it over from another window). */
export const openConsole = (name: string, force: boolean): Promise<ChannelOutput<'console:open'>> =>
  storeApi().console.open({ name, ...(force ? { force: true } : {}) });

/** Sends typed input to a session. */
export const writeConsole = (session: string, data: string) => storeApi().console.write({ session, data });

/** Ends a session; a failure is nothing to tell (the backend closes it when the page goes). */
export const closeConsole = (session: string): void =>
  void storeApi()
    .console.close({ session })
    .catch(() => undefined);

/** Follows every session's output and end; returns the unsubscribe. */
export function followConsoles(on: {
  data: (p: EventPayload<'console:data'>) => void;
  closed: (p: EventPayload<'console:closed'>) => void;
}): () => void {
  const api = storeApi();
  const offs = [api.on('console:data', on.data), api.on('console:closed', on.closed)];
  return () => offs.forEach((off) => off());
}
