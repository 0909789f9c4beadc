/**
 * What a command run over an SSH exec channel printed, and how it ended: the collecting half
 * of {@link SshConnectionPool.exec}. Kept apart from the pool because it knows one thing
 * the pool need not: OpenSSH sends the channel's EOF *before* the exit status, so the
 * stream's end comes too early to know how the command ended; the ssh2 channel's own
 * `close` comes after both.
 */
import type { Duplex } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { abortReason } from './errors.js';

/** What a command run on the host printed, and how it ended (null: killed by a signal, or no status sent). */
export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Output beyond this is dropped: the commands run this way print a line or two, never a file. */
export const EXEC_OUTPUT_CAP = 1024 * 1024;

/** How long, after the output ended, the exit status is waited for (a dying connection closes no channel). */
const EXIT_STATUS_WAIT_MS = 2_000;

/** Watches one exec channel (before it is wrapped), then collects its output and status. */
export class ExecCollector {
  private code: number | null = null;
  private stderr = '';
  private closed: Promise<void> = Promise.resolve();

  /** Call in the channel-open callback, before anything reads the channel. */
  watch(channel: ClientChannel): void {
    channel.on('exit', (status: number | null) => (this.code = status));
    channel.stderr.on('data', (chunk: Buffer) => (this.stderr = capped(this.stderr, chunk)));
    this.closed = new Promise((resolve) => channel.once('close', () => resolve()));
  }

  /** Reads `stream` (the wrapped channel) to its end; `signal` destroys it. */
  async collect(stream: Duplex, signal?: AbortSignal): Promise<ExecResult> {
    let stdout = '';
    const onAbort = (): void => void stream.destroy(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await new Promise<void>((resolve, reject) => {
        stream.on('data', (chunk: Buffer) => (stdout = capped(stdout, chunk)));
        stream.once('error', reject);
        stream.once('close', () => resolve());
      });
      await Promise.race([this.closed, new Promise((resolve) => setTimeout(resolve, EXIT_STATUS_WAIT_MS).unref())]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted) throw abortReason(signal);
    return { code: this.code, stdout, stderr: this.stderr };
  }
}

function capped(text: string, chunk: Buffer): string {
  return text.length >= EXEC_OUTPUT_CAP ? text : (text + chunk.toString('utf8')).slice(0, EXEC_OUTPUT_CAP);
}
