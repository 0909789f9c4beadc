/**
 * What the IPC transports share, kept free of zod so that the sandboxed preload bundle
 * stays small: the one Electron channel, and the envelope every call resolves to.
 */

/** The single Electron IPC channel that carries every call: `[channel, input]` in, an {@link Envelope} out. */
export const INVOKE_CHANNEL = 'egress:invoke';

/**
 * The single Electron channel main pushes events on: `[event, payload]`, event names from
 * the contract's `events` (`task:update`, `proxy:changed`, `host:status`, `console:data`,
 * `console:closed`, `app:command`).
 */
export const EVENTS_CHANNEL = 'egress:event';

/** How an error crosses the bridge: as data, rethrown as a typed error on the other side. */
export interface ErrorEnvelope {
  name: string;
  message: string;
  issues?: { path: string; message: string }[];
}

export type Envelope<T = unknown> = { ok: true; value: T } | { ok: false; error: ErrorEnvelope };

/**
 * The error names the renderer tells apart (`ErrorEnvelope.name`, and so `BridgeError.name`):
 * the backend's error classes carry them (test/unit/ipc/error-names.test.ts holds each class
 * to its name here), and serve's bridge makes `Disconnected` itself when its socket drops.
 * Every other name is shown as its message.
 */
export const ErrorNames = {
  /** No proxy of that name on any reachable host (`ProxyNotFoundError`). */
  proxyNotFound: 'ProxyNotFoundError',
  /** Another client holds the proxy's serial console (`ConsoleBusyError`). */
  consoleBusy: 'ConsoleBusyError',
  /** Serve mode's socket dropped while the call was in flight: it may or may not have run. */
  disconnected: 'Disconnected',
} as const;
export type ErrorName = (typeof ErrorNames)[keyof typeof ErrorNames];

/** True when `err` is the error of that name (a `BridgeError` rethrown from its envelope). */
export function isErrorNamed(err: unknown, name: ErrorName): err is Error {
  return err instanceof Error && err.name === name;
}

/**
 * `window.egress`, the raw bridge every front end installs: the Electron preload (over
 * {@link INVOKE_CHANNEL} and {@link EVENTS_CHANNEL}) and serve mode's WebSocket bridge.
 * The renderer's api layer (renderer/api.ts) turns it into one typed method per channel.
 */
export interface RawBridge {
  /** Calls a channel of the contract; resolves to its envelope (errors travel as data). */
  invoke(channel: string, input?: unknown): Promise<Envelope>;
  /** Listens to one event of the contract; returns the unsubscribe. The listener gets the payload only. */
  on(event: string, listener: (payload: unknown) => void): () => void;
}

/**
 * Serve mode (`egress-desk serve`): the same calls over one WebSocket. Plain types here, so
 * the renderer's bridge stays zod-free; the server validates every message it receives.
 */

/** The path of serve mode's WebSocket, on the same origin as the page. */
export const SERVE_WS_PATH = '/ws';

/** The largest message either side accepts (bytes); bigger ones close the socket (code 1009). */
export const SERVE_MAX_MESSAGE_BYTES = 1024 * 1024;

/** A call, client → server: `id` pairs it with its response. */
export interface WsRequest {
  id: number;
  channel: string;
  input?: unknown;
}

/** The answer to one call, server → client. `id` is null when the request had no readable id. */
export interface WsResponse {
  id: number | null;
  envelope: Envelope;
}

/** An event pushed by the server: one of the contract's `events` (`task:update`, `proxy:changed`, `host:status`, `console:data`, `console:closed`, `app:command`). */
export interface WsEvent {
  event: string;
  payload: unknown;
}
