/**
 * The serial console of a proxy, as the contract carries it: `console:open` starts a
 * session on the proxy's first console device (its serial port: the guest runs a getty on
 * ttyS0 and the kernel logs there), `console:write` types into it, `console:close` ends it;
 * the backend pushes `console:data` (what the guest printed) and `console:closed` (once,
 * with why).
 *
 * Encoding: text, UTF-8 on the wire to the guest. A serial tty carries text and terminal
 * escapes; xterm.js takes and gives strings; and JSON (serve mode's WebSocket) carries
 * strings without the third of overhead base64 would add. The backend decodes the guest's
 * bytes as a UTF-8 stream (a character split across two chunks is kept whole; invalid
 * bytes become U+FFFD), so binary output (a stray `cat` of a binary file) is shown as
 * replacement characters rather than passed through: acceptable for a console.
 */
import { z } from 'zod';
import { ProxySpecSchema } from './proxy.js';

/** Most characters one `console:write` takes: far above any paste a person types into a getty. */
export const CONSOLE_WRITE_MAX = 64 * 1024;
/** Most characters one `console:data` event carries (the backend splits larger output). */
export const CONSOLE_DATA_MAX = 64 * 1024;
/** Sessions open at once, across every window and browser of one backend. */
export const CONSOLE_SESSIONS_MAX = 8;

/** A session id: a random UUID the backend hands out. */
export const ConsoleSessionIdSchema = z
  .string()
  .regex(
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    'must be a console session id from console:open',
  );

/** A lone UTF-16 surrogate cannot be encoded as UTF-8: refused rather than silently changed. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export const ConsoleOpenInputSchema = z.strictObject({
  name: ProxySpecSchema.shape.name,
  /** Take the console over from whoever holds it (virsh console, another window): they are disconnected. */
  force: z.boolean().optional(),
});

export const ConsoleOpenSchema = z.object({
  session: ConsoleSessionIdSchema,
  /** The host the proxy runs on. */
  host: z.string(),
  /** The libvirt domain name. */
  domain: z.string(),
});
export type ConsoleOpen = z.infer<typeof ConsoleOpenSchema>;

export const ConsoleWriteInputSchema = z.strictObject({
  session: ConsoleSessionIdSchema,
  /** What was typed or pasted, as text (sent to the guest as UTF-8). */
  data: z
    .string()
    .min(1, 'nothing to write')
    .max(CONSOLE_WRITE_MAX, `at most ${CONSOLE_WRITE_MAX} characters at once`)
    .refine((s) => !LONE_SURROGATE.test(s), 'must be valid text (a lone UTF-16 surrogate cannot be sent as UTF-8)'),
});

export const ConsoleWriteSchema = z.object({
  /** UTF-8 bytes handed to the stream (resolved once the connection took them). */
  bytes: z.number().int().nonnegative(),
});

export const ConsoleCloseInputSchema = z.strictObject({ session: ConsoleSessionIdSchema });
export const ConsoleCloseSchema = z.object({
  /** False when the session had already ended (or never existed): closing is idempotent. */
  closed: z.boolean(),
});

export const ConsoleDataSchema = z.object({
  session: ConsoleSessionIdSchema,
  data: z.string().max(CONSOLE_DATA_MAX),
});
export type ConsoleData = z.infer<typeof ConsoleDataSchema>;

/** Why a session ended. */
export const CONSOLE_CLOSE_CAUSES = [
  /** console:close, or the window/browser that opened it went away. */
  'requested',
  /** The domain stopped (or was deleted). */
  'stopped',
  /** Another client took the console over (FORCE), or the daemon ended the stream. */
  'ended',
  /** The stream or the connection to the host failed. */
  'error',
  /** The backend is closing (app quit, serve stopped, config replaced). */
  'shutdown',
] as const;
export type ConsoleCloseCause = (typeof CONSOLE_CLOSE_CAUSES)[number];

export const ConsoleClosedSchema = z.object({
  session: ConsoleSessionIdSchema,
  cause: z.enum(CONSOLE_CLOSE_CAUSES),
  /** In words, for the state line: what happened and what to do next. */
  reason: z.string(),
});
export type ConsoleClosed = z.infer<typeof ConsoleClosedSchema>;
