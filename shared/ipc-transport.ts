/**
 * What the IPC transports share, kept free of zod so that the sandboxed preload bundle
 * stays small: the one Electron channel, and the envelope every call resolves to.
 */

/** The single Electron IPC channel that carries every call: `[channel, input]` in, an {@link Envelope} out. */
export const INVOKE_CHANNEL = 'egress:invoke';

/** How an error crosses the bridge: as data, rethrown as a typed error on the other side. */
export interface ErrorEnvelope {
  name: string;
  message: string;
  issues?: { path: string; message: string }[];
}

export type Envelope<T = unknown> = { ok: true; value: T } | { ok: false; error: ErrorEnvelope };
