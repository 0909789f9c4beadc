/**
 * The one pass over an image's bytes: each chunk is hashed, then handed to a file write
 * stream, with backpressure (a slow disk pauses the network, nothing piles up in memory),
 * and a stall watch that aborts when no byte has arrived for a while.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { ImageTooLargeError } from './errors.js';

/** Bytes not yet on disk that the writer may hold: bounds memory whatever the network's pace. */
const WRITE_BUFFER_BYTES = 4 * 1024 * 1024;

/** A pull source of chunks: a fetch body's reader, or a local file. */
export interface StreamSource {
  /** The next chunk; undefined at the end. Rejects when the download's signal aborts. */
  read(): Promise<Uint8Array | undefined>;
  cancel(): Promise<void>;
}

/**
 * Aborts its signal when no byte has arrived for `timeoutMs`. A whole-download deadline
 * would kill a slow but healthy download; a per-chunk timeout of a few seconds kills one
 * that is merely bursty. Time spent waiting for the disk does not count.
 */
export class Stall {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private last = Date.now();
  private paused = false;
  /** True once the watch fired. */
  fired = false;
  /** The byte count at the last sign of life (for the error message). */
  bytes: number | undefined;

  constructor(private readonly timeoutMs: number) {
    // Checking a timestamp a few times per timeout is cheaper than re-arming a timer per chunk.
    this.timer = setInterval(() => this.check(), Math.max(10, Math.min(1000, Math.floor(timeoutMs / 4))));
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(bytes?: number): void {
    this.last = Date.now();
    if (bytes !== undefined) this.bytes = bytes;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.touch();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    if (this.paused || this.fired || Date.now() - this.last < this.timeoutMs) return;
    this.fired = true;
    this.stop();
    this.controller.abort(new Error('stalled'));
  }
}

export interface WriteHashedOptions {
  path: string;
  /** Append to the file (a resume) instead of replacing it. */
  append: boolean;
  /** Every chunk goes through it before the disk (one pass computes every digest needed). */
  hash: { update(chunk: Uint8Array): void };
  /** Bytes already in the file (and in `hash`). */
  startBytes: number;
  /** Refuse to grow the file past this many bytes. */
  limit: number;
  stall: Stall;
  signal: AbortSignal;
  onBytes: (bytes: number) => void;
}

/**
 * Pumps `source` into the file at `path`, hashing every chunk; resolves to the file's
 * size once every byte is written and the file closed. On failure what was written
 * stays (a prefix of the image: a resume continues from it).
 */
export async function writeHashed(source: StreamSource, o: WriteHashedOptions): Promise<number> {
  const ws = createWriteStream(o.path, { flags: o.append ? 'a' : 'w', mode: 0o600, highWaterMark: WRITE_BUFFER_BYTES });
  let writeError: Error | undefined;
  ws.on('error', (err) => (writeError ??= err));
  let bytes = o.startBytes;
  o.stall.touch(bytes);
  try {
    for (;;) {
      const chunk = await source.read();
      if (o.signal.aborted) throw o.signal.reason;
      if (chunk === undefined) break;
      bytes += chunk.length;
      if (bytes > o.limit) throw new ImageTooLargeError('', bytes, o.limit);
      o.stall.touch(bytes);
      o.hash.update(chunk);
      o.onBytes(bytes);
      if (!ws.write(chunk)) {
        o.stall.pause();
        try {
          await once(ws, 'drain', { signal: o.signal });
        } finally {
          o.stall.resume();
        }
      }
      if (writeError) throw writeError;
    }
  } catch (err) {
    await source.cancel();
    await closeStream(ws, () => writeError).catch(() => undefined);
    throw err;
  }
  await closeStream(ws, () => writeError);
  return bytes;
}

function closeStream(ws: WriteStream, error: () => Error | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      const err = error();
      if (err) reject(err);
      else resolve();
    };
    if (ws.closed) return settle();
    ws.once('close', settle);
    ws.end();
  });
}
