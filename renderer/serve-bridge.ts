/**
 * Serve mode's `window.egress`: the preload's `invoke(channel, input) → Envelope` over the
 * page's own WebSocket (`egress-desk serve`), so the app code cannot tell the two apart.
 * Calls made before the socket opens wait for it; when it drops, every call in flight
 * fails with a `Disconnected` envelope (it may or may not have run), and the bridge
 * reconnects with backoff.
 */
import { EventListeners } from '../shared/event-listeners.js';
import {
  type Envelope,
  ErrorNames,
  type RawBridge,
  SERVE_WS_PATH,
  type WsEvent,
  type WsRequest,
  type WsResponse,
} from '../shared/ipc-transport.js';

/** The delays between reconnection attempts (ms): doubling from the first, capped at the last. */
export const RECONNECT_MIN_MS = 250;
export const RECONNECT_MAX_MS = 5000;

function disconnected(reason: string): Envelope {
  return {
    ok: false,
    error: {
      name: ErrorNames.disconnected,
      message: `The connection to egress-desk serve was lost (${reason}); the call may not have completed. Reconnecting…`,
    },
  };
}

function isResponse(value: unknown): value is WsResponse {
  return typeof value === 'object' && value !== null && 'id' in value && 'envelope' in value;
}

function isEvent(value: unknown): value is WsEvent {
  return typeof value === 'object' && value !== null && typeof (value as { event?: unknown }).event === 'string';
}

/** A bridge over a WebSocket to `egress-desk serve`, at `url` (the page's own origin by default). */
export function createServeBridge(
  url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${SERVE_WS_PATH}`,
): RawBridge {
  const pending = new Map<number, (envelope: Envelope) => void>();
  /** Calls waiting for the socket to open: sent on open, failed if this attempt fails. */
  let queued: string[] = [];
  const listeners = new EventListeners();
  let nextId = 1;
  let delay = RECONNECT_MIN_MS;
  let socket: WebSocket;

  function failAll(reason: string): void {
    const envelope = disconnected(reason);
    const waiting = [...pending.values()];
    pending.clear();
    queued = [];
    for (const settle of waiting) settle(envelope);
  }

  function open(): void {
    socket = new WebSocket(url);
    socket.addEventListener('open', () => {
      delay = RECONNECT_MIN_MS;
      for (const message of queued) socket.send(message);
      queued = [];
    });
    socket.addEventListener('message', (event: MessageEvent) => {
      let message: unknown;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return; // not ours to answer: the server only sends JSON
      }
      if (isResponse(message) && typeof message.id === 'number') {
        const settle = pending.get(message.id);
        pending.delete(message.id);
        settle?.(message.envelope);
      } else if (isEvent(message)) {
        listeners.dispatch(message.event, message.payload);
      }
    });
    socket.addEventListener('close', (event: CloseEvent) => {
      failAll(event.code === 1001 ? 'egress-desk serve stopped' : `socket closed, code ${event.code}`);
      // After the server is gone for good this keeps trying, slowly; a page reload does the same.
      setTimeout(open, delay);
      delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    });
  }
  open();

  return {
    invoke(channel, input) {
      const id = nextId++;
      const request: WsRequest = input === undefined ? { id, channel } : { id, channel, input };
      const message = JSON.stringify(request);
      return new Promise<Envelope>((resolve) => {
        pending.set(id, resolve);
        if (socket.readyState === WebSocket.OPEN) socket.send(message);
        else queued.push(message);
      });
    },
    on(event, listener) {
      return listeners.on(event, listener);
    },
  };
}

/**
 * Installs the serve bridge as `window.egress` when the page is not in the app window
 * (where the preload has already put one) and was served over HTTP by `egress-desk serve`.
 */
export function installServeBridge(): void {
  if (window.egress || (location.protocol !== 'http:' && location.protocol !== 'https:')) return;
  window.egress = Object.freeze(createServeBridge());
}
