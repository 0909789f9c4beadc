/**
 * The renderer's view of the backend: one typed method per channel of the contract,
 * over `window.egress.invoke` (the Electron preload, or serve mode's WebSocket bridge).
 * Envelopes become values, or a BridgeError carrying the backend's name and message.
 */
import { BridgeError, type ChannelName, type EgressBridge, type Envelope, channels, splitChannel } from '../shared/ipc.js';

/** What a front end installs as `window.egress`. */
export interface RawBridge {
  invoke(channel: string, input?: unknown): Promise<Envelope>;
}

declare global {
  interface Window {
    egress?: RawBridge;
  }
}

export function createApi(raw: RawBridge): EgressBridge {
  const api: Record<string, Record<string, (input?: unknown) => Promise<unknown>>> = {};
  for (const name of Object.keys(channels) as ChannelName[]) {
    const [area, method] = splitChannel(name);
    (api[area] ??= {})[method] = async (input?: unknown) => {
      const envelope = await raw.invoke(name, input);
      if (!envelope.ok) throw new BridgeError(envelope.error);
      return envelope.value;
    };
  }
  return api as EgressBridge;
}

/** The api of this window, or an error saying why there is none (opened outside the app). */
export function windowApi(): EgressBridge {
  if (!window.egress) throw new Error('This page must be opened by Egress Desk (the app window or egress-desk serve).');
  return createApi(window.egress);
}
