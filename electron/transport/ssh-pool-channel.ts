/**
 * Opening one channel on a pooled SSH connection (ssh-pool.ts): bounded by the connect
 * timeout, cancelled by the caller's signal, and counted among the connection's streams
 * until it closes, so that a connection that dies can fail every stream on it at once.
 */
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import { abortReason } from './errors.js';
import { ChannelStream } from './ssh-channel.js';
import type { SshHostSettings } from './ssh-config.js';
import { formatSeconds } from './ssh-connect.js';
import { SshConnectionLostError } from './ssh-errors.js';

/** A connection the pool holds, as its channels see it. */
export interface LiveConnection {
  client: Client;
  streams: Set<Duplex>;
  dead: boolean;
  /** Why it died, for the streams' error. */
  reason: string | undefined;
}

/** Asks `client` for a channel of one kind (a forwarded socket, a TCP forward, an exec), in ssh2's callback style. */
export type OpenChannel = (client: Client, cb: (err: Error | undefined, channel: ClientChannel) => void) => void;

/** The connection died between being handed out and the channel request: the pool connects again, once. */
export class StaleConnection extends Error {}

/**
 * Opens a channel with `open` on `live`. Rejects with {@link StaleConnection} when the
 * connection is already dead, with {@link SshConnectionLostError} when it dies meanwhile or
 * leaves the request unanswered for `timeoutMs` (the connection is then dropped), with the
 * signal's reason when it fires, and with `openError(err)` when the server refuses.
 */
export function openChannelOn(
  live: LiveConnection,
  settings: SshHostSettings,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  open: OpenChannel,
  openError: (err: Error) => Error,
): Promise<Duplex> {
  if (live.dead) return Promise.reject(new StaleConnection());
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<Duplex>((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | undefined, stream?: Duplex): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(stream!);
    };
    const onAbort = (): void => settle(abortReason(signal!));
    const timer = setTimeout(() => {
      // A server that leaves a channel request unanswered this long is gone: drop the connection.
      live.reason ??= `no answer to a channel request in ${formatSeconds(timeoutMs)}`;
      settle(new SshConnectionLostError(settings.hostName, settings.port, live.reason));
      live.client.destroy();
    }, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      open(live.client, (err, channel) => {
        if (err) {
          // ssh2 fails pending opens with "No response from server" when the connection drops.
          settle(
            live.dead || /No response from server/.test(err.message)
              ? new SshConnectionLostError(settings.hostName, settings.port, live.reason ?? 'closed')
              : openError(err),
          );
          return;
        }
        const stream = new ChannelStream(channel);
        if (settled || live.dead) {
          stream.destroy(); // the dial was abandoned (aborted, timed out): give the channel back
          return;
        }
        live.streams.add(stream);
        stream.once('close', () => live.streams.delete(stream));
        settle(undefined, stream);
      });
    } catch {
      settle(new StaleConnection()); // ssh2 throws "Not connected" synchronously
    }
  });
}
