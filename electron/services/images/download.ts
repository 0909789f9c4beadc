/**
 * One image download into the cache: every byte is hashed as it is written, in a single
 * pass (the file is never read back on the normal path), under a `.partial` name that is
 * renamed to the final name only once the digest matches. The expected digest is the
 * config's SHA-256, or a publisher's SHA-512: then the SHA-256 is computed in the same
 * pass and names the final file. An interrupted download keeps
 * its partial file and resumes with a Range request validated by If-Range. The partial
 * file, its sidecar and the move into place are partial-file.ts.
 *
 * Callers hold the digest's lock (lock.ts): nothing here guards against a second writer.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../config/atomic-write.js';
import {
  ImageCacheError,
  ImageDownloadCancelledError,
  ImageDownloadNetworkError,
  ImageDownloadStalledError,
  ImageHttpError,
  ImageNotFoundError,
  ImageTooLargeError,
  ImageUrlError,
} from './errors.js';
import { DigestPass } from './digest-pass.js';
import {
  type DownloadTarget,
  type Downloaded,
  type PartialMeta,
  complete,
  discardPartial,
  readMeta,
  verifyAndComplete,
} from './partial-file.js';
import type { ImageProgress } from './progress.js';
import { type StreamSource, Stall, writeHashed } from './sink.js';

export interface DownloadOptions {
  fetch: typeof fetch;
  stallTimeoutMs: number;
  maxBytes: number;
  /** Aborts the download (the partial is kept). */
  signal: AbortSignal;
  progress: (phase: ImageProgress['phase'], bytes: number, total: number | undefined, force?: boolean) => void;
}

/** Downloads (or resumes) `target` and moves it to its final name. */
export async function downloadImage(target: DownloadTarget, options: DownloadOptions): Promise<Downloaded> {
  const url = checkUrl(target.url);
  if (url.protocol === 'file:') return copyLocalFile(fileURLToPath(url), target, options);
  let resume = await resumable(target);
  // A resume can turn out wrong (416 with a bad partial, a Content-Range we did not ask
  // for): then one fresh request. Two attempts bound the loop whatever the server does.
  for (let attempt = 0; ; attempt++) {
    const size = await httpAttempt(target, options, resume);
    if (size !== 'restart') return size;
    if (attempt >= 1)
      throw new ImageDownloadNetworkError(target.url, 'the server does not answer range requests consistently', 0);
    await discardPartial(target);
    resume = undefined;
  }
}

/** The URL, if the cache can download it. */
export function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ImageUrlError(raw, 'not a valid URL');
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw new ImageUrlError(raw, `the scheme ${url.protocol.slice(0, -1)} is not supported (use https, http or file)`);
  }
  return url;
}

/** The partial file and its sidecar, when a resume from them is possible. */
async function resumable(target: DownloadTarget): Promise<{ size: number; meta: PartialMeta } | undefined> {
  const size = await stat(target.partialPath).then(
    (s) => (s.isFile() ? s.size : -1),
    () => -1,
  );
  if (size <= 0) return undefined;
  const meta = await readMeta(target.metaPath);
  // Another URL may serve other bytes at other offsets; a partial longer than its image is corrupt.
  if (meta === undefined || meta.url !== target.url || (meta.total !== undefined && size > meta.total)) {
    await discardPartial(target);
    return undefined;
  }
  return { size, meta };
}

/**
 * One HTTP request. Resolves to the image's size when it is complete and verified, or
 * 'restart' when the partial must be dropped and a plain request made.
 */
async function httpAttempt(
  target: DownloadTarget,
  options: DownloadOptions,
  resume: { size: number; meta: PartialMeta } | undefined,
): Promise<Downloaded | 'restart'> {
  let hash = new DigestPass(target.expected);
  let offset = 0;
  const headers: Record<string, string> = { 'accept-encoding': 'identity' };
  if (resume) {
    // The one unavoidable second read: a hash's state cannot be saved with the partial.
    offset = await rehash(target.partialPath, hash, resume.meta.total, options);
    headers.range = `bytes=${offset}-`;
    const validator =
      resume.meta.etag && !resume.meta.etag.startsWith('W/') ? resume.meta.etag : resume.meta.lastModified;
    if (validator) headers['if-range'] = validator;
  }

  const stall = new Stall(options.stallTimeoutMs);
  const signal = AbortSignal.any([options.signal, stall.signal]);
  let res: Response;
  try {
    res = await options.fetch(target.url, { headers, signal, redirect: 'follow' });
  } catch (err) {
    stall.stop();
    throw await failure(err, target, options, stall, offset);
  }

  const drop = async (): Promise<void> => {
    stall.stop();
    await res.body?.cancel().catch(() => undefined);
  };
  if (res.status === 416 && resume) {
    await drop();
    // Nothing lies past the partial: it is the whole image, or it is wrong.
    const total = /^bytes \*\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1];
    if (total !== undefined && Number(total) !== offset) return 'restart';
    const result = hash.finish();
    return result.matches ? complete(target, offset, result.sha256) : 'restart';
  }
  if (res.status === 404 || res.status === 410) {
    await drop();
    throw new ImageNotFoundError(target.url);
  }
  if (!res.ok) {
    await drop();
    throw new ImageHttpError(target.url, res.status, res.statusText);
  }
  let total: number | undefined;
  let append = false;
  if (res.status === 206) {
    const range = parseContentRange(res.headers.get('content-range'));
    if (!resume || range === undefined || range.start !== offset) {
      await drop();
      return 'restart';
    }
    total = range.total;
    append = true;
  } else {
    // 200: the server ignored the range, or If-Range found the file changed. Start over.
    if (offset > 0) hash = new DigestPass(target.expected);
    offset = 0;
    const length = res.headers.get('content-length');
    total = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
  }
  if (total !== undefined && total > options.maxBytes) {
    await drop();
    await discardPartial(target);
    throw new ImageTooLargeError(target.url, total, options.maxBytes);
  }
  if (res.body === null) {
    await drop();
    throw new ImageDownloadNetworkError(target.url, 'the response has no body', offset);
  }

  const meta: PartialMeta = { url: target.url };
  const etag = res.headers.get('etag');
  const lastModified = res.headers.get('last-modified');
  if (etag) meta.etag = etag;
  if (lastModified) meta.lastModified = lastModified;
  if (total !== undefined) meta.total = total;
  await writeFileAtomic(target.metaPath, JSON.stringify(meta));

  // fetch drops body bytes still queued inside it when the connection fails: those few
  // are fetched again on resume. What reached the file is always a prefix of the image.
  const reader = res.body.getReader();
  const source: StreamSource = {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    cancel: async () => void (await reader.cancel().catch(() => undefined)),
  };
  let bytes = offset;
  try {
    bytes = await writeHashed(source, {
      path: target.partialPath,
      append,
      hash,
      startBytes: offset,
      limit: options.maxBytes,
      stall,
      signal,
      onBytes: (n) => options.progress('download', n, total),
    });
  } catch (err) {
    throw await failure(err, target, options, stall, stall.bytes ?? bytes);
  } finally {
    stall.stop();
  }
  if (total !== undefined && bytes !== total) {
    throw new ImageDownloadNetworkError(target.url, `the connection closed after ${bytes} of ${total} bytes`, bytes);
  }
  options.progress('download', bytes, total, true);
  return verifyAndComplete(target, hash, bytes);
}

/** Hashes the existing partial file into `hash`; resolves to its size. */
async function rehash(
  path: string,
  hash: DigestPass,
  total: number | undefined,
  options: DownloadOptions,
): Promise<number> {
  let bytes = 0;
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024, signal: options.signal });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
      options.progress('rehash', bytes, total);
    }
  } catch (err) {
    if (options.signal.aborted) throw new ImageDownloadCancelledError(path);
    throw err;
  }
  return bytes;
}

/** Streams a local file (file:// URL) into the cache through the same hashing writer. */
async function copyLocalFile(file: string, target: DownloadTarget, options: DownloadOptions): Promise<Downloaded> {
  const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') throw new ImageNotFoundError(target.url);
    throw new ImageUrlError(target.url, err.message);
  });
  if (!info.isFile()) throw new ImageUrlError(target.url, `${file} is not a regular file`);
  if (info.size > options.maxBytes) throw new ImageTooLargeError(target.url, info.size, options.maxBytes);
  // A local copy is fast: it always starts over rather than trusting an old partial.
  await discardPartial(target);
  const hash = new DigestPass(target.expected);
  const stall = new Stall(options.stallTimeoutMs);
  const signal = AbortSignal.any([options.signal, stall.signal]);
  const stream = createReadStream(file, { highWaterMark: 1024 * 1024 });
  const iterator = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const source: StreamSource = {
    read: async () => {
      const next = await iterator.next();
      return next.done ? undefined : next.value;
    },
    cancel: async () => void stream.destroy(),
  };
  let bytes: number;
  try {
    bytes = await writeHashed(source, {
      path: target.partialPath,
      append: false,
      hash,
      startBytes: 0,
      limit: options.maxBytes,
      stall,
      signal,
      onBytes: (n) => options.progress('download', n, info.size),
    });
  } catch (err) {
    throw await failure(err, target, options, stall, stall.bytes ?? 0);
  } finally {
    stall.stop();
  }
  options.progress('download', bytes, info.size, true);
  return verifyAndComplete(target, hash, bytes);
}

/** Turns whatever a failed fetch or stream threw into the cache's typed errors. */
async function failure(
  err: unknown,
  target: DownloadTarget,
  options: DownloadOptions,
  stall: Stall,
  bytes: number,
): Promise<Error> {
  if (err instanceof ImageTooLargeError) {
    // What arrived of an image over the limit is of no use to anyone.
    await discardPartial(target);
    return err.url ? err : new ImageTooLargeError(target.url, err.size, err.limit);
  }
  if (err instanceof ImageCacheError) return err;
  if (stall.fired) return new ImageDownloadStalledError(target.url, options.stallTimeoutMs, bytes);
  if (options.signal.aborted) return new ImageDownloadCancelledError(target.url);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    // The partial stays: once there is room, the next pull resumes from where this one stopped.
    return new ImageCacheError(
      `the disk holding the image cache is full (${code}) while writing ${target.partialPath}: the ${bytes} bytes downloaded so far are kept; free space there (or point EGRESS_DESK_HOME elsewhere) and pull again to resume`,
      { cause: err },
    );
  }
  if (code === 'EACCES' || code === 'EROFS') {
    return new ImageCacheError(`cannot write ${target.partialPath}: ${(err as Error).message}`, { cause: err });
  }
  return new ImageDownloadNetworkError(target.url, describeNetworkError(err), bytes, { cause: err });
}

/** undici's "fetch failed" hides the reason in `cause`: name that instead. */
function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  const inner = cause instanceof Error ? cause : err instanceof Error ? err : undefined;
  if (!inner) return String(err);
  const code = (inner as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was closed';
  return inner.message;
}

function parseContentRange(value: string | null): { start: number; end: number; total?: number } | undefined {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value ?? '');
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (end < start) return undefined;
  return m[3] === '*' ? { start, end } : { start, end, total: Number(m[3]) };
}
