/**
 * The renderer's view of the backend: one typed method per channel of the contract, and
 * `on(event, listener) → unsubscribe` for its events, over `window.egress` (the Electron
 * preload, or serve mode's WebSocket bridge). Envelopes become values, or a BridgeError
 * carrying the backend's name and message.
 */
import type { RawBridge } from '../shared/ipc-transport.js';
import {
  BridgeError,
  type ChannelName,
  type EgressApi,
  type EventName,
  channels,
  events,
  splitChannel,
} from '../shared/ipc.js';

declare global {
  interface Window {
    egress?: RawBridge;
  }
}

export function createApi(raw: RawBridge): EgressApi {
  const api: Record<string, unknown> = {};
  for (const name of Object.keys(channels) as ChannelName[]) {
    const [area, method] = splitChannel(name);
    ((api[area] ??= {}) as Record<string, (input?: unknown) => Promise<unknown>>)[method] = async (input?: unknown) => {
      const envelope = await raw.invoke(name, input);
      if (!envelope.ok) throw new BridgeError(envelope.error);
      return envelope.value;
    };
  }
  api.on = (event: EventName, listener: (payload: unknown) => void) => {
    if (!Object.hasOwn(events, event)) throw new Error(`unknown event ${JSON.stringify(event)}`);
    return raw.on(event, listener);
  };
  return api as EgressApi;
}

/** The api of this window, or an error saying why there is none (opened outside the app). */
export function windowApi(): EgressApi {
  if (!window.egress) throw new Error('This page must be opened by Egress Desk (the app window or egress-desk serve).');
  return createApi(window.egress);
}
