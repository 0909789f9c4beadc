/**
 * Volume upload and download and the domain console, as Node streams over a
 * {@link StreamChannel}. Memory stays bounded: uploads await the transport's drain before
 * sending more and read the source only as fast as that; downloads stop reading the
 * connection while the sink is full. Nothing ever holds a whole file.
 */
import { Duplex, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RpcConnection } from './connection.js';
import { ProtocolError } from './errors.js';
import { STREAM_CHUNK_MAX } from './packet.js';
import { spec } from './procedures.js';
import { StreamChannel, type StreamEvents } from './stream-channel.js';
import type { DomainRef, StorageVolRef } from './types.js';

/** Options of {@link uploadVolume} and {@link downloadVolume}. */
export interface TransferOptions {
  /** Byte offset in the volume. Default 0. */
  offset?: bigint;
  /** Bytes to transfer; 0 (the default) means to the end (download) or all of the source (upload). */
  length?: bigint;
  /** STORAGE_VOL_UPLOAD/DOWNLOAD flags (e.g. SPARSE_STREAM is not supported here). Default 0. */
  flags?: number;
  /** Aborts the transfer: the daemon is told (empty STREAM/ERROR) and its confirmation awaited. */
  signal?: AbortSignal;
  /** Called after each chunk with the bytes done and the expected total (when known). */
  onProgress?: (done: number, total: number | undefined) => void;
  /** Expected total for progress; defaults to `length` when non-zero. */
  total?: number;
  /** How long to wait for the daemon to confirm an abort (ms). Default 10000. */
  abortTimeoutMs?: number;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: Error): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Observed later (or never, when the transfer fails first): never an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Waits for `promise`, but no longer than `ms`; never rejects. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

/** Sends `chunk` in pieces the daemon accepts, waiting for drain between them as needed. */
async function sendInPieces(channel: StreamChannel, chunk: Buffer): Promise<void> {
  for (let off = 0; off < chunk.length; off += STREAM_CHUNK_MAX) {
    await channel.write(chunk.subarray(off, Math.min(chunk.length, off + STREAM_CHUNK_MAX)));
  }
}

function totalOf(options: TransferOptions): number | undefined {
  if (options.total !== undefined) return options.total;
  return options.length ? Number(options.length) : undefined;
}

function transferArgs(vol: StorageVolRef, options: TransferOptions) {
  return { vol, offset: options.offset ?? 0n, length: options.length ?? 0n, flags: options.flags ?? 0 };
}

/**
 * Uploads `source` into `vol` (STORAGE_VOL_UPLOAD). Resolves with the bytes sent once the
 * daemon confirms. If the daemon refuses the upload call, `source` is left unread; once
 * streaming has begun it is consumed (and destroyed on failure), as by `pipeline`.
 */
export async function uploadVolume(
  conn: RpcConnection,
  vol: StorageVolRef,
  source: Readable,
  options: TransferOptions = {},
): Promise<number> {
  options.signal?.throwIfAborted();
  const row = spec('STORAGE_VOL_UPLOAD');
  const channel = new StreamChannel(conn, row.proc, 'STORAGE_VOL_UPLOAD');
  const outcome = deferred<undefined>();
  const total = totalOf(options);
  let sink: Writable | null = null;
  let done = 0;
  const events: StreamEvents = {
    data: () => sink?.destroy(new ProtocolError('STORAGE_VOL_UPLOAD: the daemon sent data on an upload stream')),
    eof: () => undefined,
    ok: () => outcome.resolve(undefined),
    error: (err) => {
      outcome.reject(err);
      sink?.destroy(err);
    },
  };
  await channel.open((w) => row.args.encode(w, transferArgs(vol, options)), events);
  sink = new Writable({
    highWaterMark: STREAM_CHUNK_MAX,
    write(chunk: Buffer, _encoding, callback) {
      sendInPieces(channel, chunk).then(() => {
        done += chunk.length;
        options.onProgress?.(done, total);
        callback();
      }, callback);
    },
    final(callback) {
      try {
        channel.finish();
      } catch (err) {
        return callback(err as Error);
      }
      outcome.promise.then(() => callback(), callback);
    },
    destroy(err, callback) {
      // The daemon ended the stream itself (error or confirmation): nothing to abort.
      if (!err || channel.done) return callback(err);
      channel.abort();
      settledWithin(outcome.promise, options.abortTimeoutMs ?? 10_000).then(() => callback(err));
    },
  });
  // A failure the daemon reported before the sink existed (it can race the reply).
  if (channel.failure) sink.destroy(channel.failure);
  try {
    await pipeline(source, sink, options.signal ? { signal: options.signal } : {});
  } finally {
    channel.end();
  }
  return done;
}

/** Downloads `vol` into `sink` (STORAGE_VOL_DOWNLOAD). Resolves with the bytes received once the daemon confirms. */
export async function downloadVolume(
  conn: RpcConnection,
  vol: StorageVolRef,
  sink: Writable,
  options: TransferOptions = {},
): Promise<number> {
  options.signal?.throwIfAborted();
  const row = spec('STORAGE_VOL_DOWNLOAD');
  const channel = new StreamChannel(conn, row.proc, 'STORAGE_VOL_DOWNLOAD');
  const outcome = deferred<undefined>();
  const total = totalOf(options);
  let paused = false;
  let done = 0;
  const resume = (): void => {
    if (!paused) return;
    paused = false;
    channel.resumeReading();
  };
  const source = new Readable({
    highWaterMark: STREAM_CHUNK_MAX,
    read: resume,
    destroy(err, callback) {
      resume();
      if (!err || channel.done) return callback(err);
      channel.abort();
      settledWithin(outcome.promise, options.abortTimeoutMs ?? 10_000).then(() => callback(err));
    },
  });
  // The daemon's reply, data and an error can arrive in one chunk, before the pipeline
  // below is attached; this listener keeps that early error from being "unhandled". The
  // pipeline still sees it: it checks the stream's errored state when it attaches.
  source.on('error', () => undefined);
  const events: StreamEvents = {
    data(chunk) {
      if (source.destroyed) return;
      done += chunk.length;
      options.onProgress?.(done, total);
      // The sink is full: stop reading the connection until it drains. The daemon then
      // blocks on its socket, so nothing piles up on either side.
      if (!source.push(chunk) && !paused) {
        paused = true;
        channel.pauseReading();
      }
    },
    eof() {
      // EOF is the empty CONTINUE; the stream is over once the daemon confirms our finish.
      try {
        channel.finish();
      } catch (err) {
        source.destroy(err as Error);
      }
    },
    ok() {
      outcome.resolve(undefined);
      if (!source.destroyed) source.push(null);
    },
    error(err) {
      outcome.reject(err);
      source.destroy(err);
    },
  };
  try {
    await channel.open((w) => row.args.encode(w, transferArgs(vol, options)), events);
    await pipeline(source, sink, options.signal ? { signal: options.signal } : {});
  } finally {
    resume();
    channel.end();
  }
  return done;
}

/**
 * Opens a domain console (DOMAIN_OPEN_CONSOLE) as a Duplex: what is written goes to the
 * guest's console, what the guest prints can be read. Ending the writable side finishes
 * the stream; destroying it aborts. Console output is small, so it is buffered rather
 * than pausing the whole connection when nobody reads.
 */
export async function openConsole(
  conn: RpcConnection,
  dom: DomainRef,
  devName: string | null,
  flags: number,
): Promise<Duplex> {
  const row = spec('DOMAIN_OPEN_CONSOLE');
  const channel = new StreamChannel(conn, row.proc, 'DOMAIN_OPEN_CONSOLE');
  const confirmed = deferred<undefined>();
  const duplex = new Duplex({
    allowHalfOpen: false,
    read: () => undefined,
    write(chunk: Buffer, _encoding, callback) {
      sendInPieces(channel, chunk).then(() => callback(), callback);
    },
    final(callback) {
      if (channel.done) return callback(channel.failure);
      try {
        channel.finish();
      } catch (err) {
        return callback(err as Error);
      }
      confirmed.promise.then(() => callback(), callback);
    },
    destroy(err, callback) {
      if (!channel.done) {
        try {
          channel.abort();
        } catch {
          /* the connection is already gone */
        }
      }
      channel.end();
      callback(err);
    },
  });
  const events: StreamEvents = {
    data: (chunk) => {
      if (!duplex.destroyed) duplex.push(chunk);
    },
    eof: () => {
      if (!duplex.destroyed) duplex.push(null);
    },
    ok: () => confirmed.resolve(undefined),
    error: (err) => {
      confirmed.reject(err);
      // Before the caller has the stream (and an 'error' listener), fail the open instead.
      if (handedOut) duplex.destroy(err);
      else earlyError = err;
    },
  };
  let handedOut = false;
  let earlyError: Error | null = null;
  await channel.open((w) => row.args.encode(w, { dom, devName, flags }), events);
  if (earlyError) {
    channel.end();
    throw earlyError;
  }
  handedOut = true;
  return duplex;
}
