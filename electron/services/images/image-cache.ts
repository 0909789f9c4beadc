/**
 * The local image cache: cloud images stored by content (`<sha256>.qcow2` or `.img`),
 * downloaded once, verified while they stream in, resumed after an interruption, shared
 * between concurrent callers and between processes (the app and the CLI), and evicted
 * least recently used first.
 *
 * Layout of the directory:
 *   <sha256>.qcow2 | <sha256>.img   verified images (the only files ever handed out)
 *   <sha256>.partial                 a download in progress or interrupted (a prefix of the image)
 *   <sha256>.partial.json            what resuming it needs: URL, ETag, Last-Modified, size
 *   <sha256>.lock                    held while a process writes the partial (pid, host, start)
 *   sha512-<sha512>.partial|.json|.lock
 *                                    the same for an image known only by its publisher's SHA-512
 *                                    (Debian): verified, it becomes <sha256>.qcow2 like any other
 *
 * The class keeps the directory's invariants (one writer per digest across processes, a
 * partial is only ever a prefix, eviction never takes a file being handed out): getting an
 * image in is here; what stands alone is beside it: listing and pruning what the directory
 * holds (cache-contents.ts), the HTTP download and resume (download.ts), the partial file
 * and its sidecar (partial-file.ts), the lock (lock.ts), hashing while writing (sink.ts,
 * digest-pass.ts).
 */
import { mkdir, rename, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CachedImage,
  type ImageFormat,
  listCached,
  listPartials,
  lockPath,
  type PartialImage,
  pruneCache,
  type PruneOptions,
  type RemovedEntry,
} from './cache-contents.js';
import type { ExpectedDigest } from './digest-pass.js';
import type { DigestAlgorithm } from './sums-parse.js';
import { checkUrl, downloadImage } from './download.js';
import { ImageCacheError, ImageDownloadCancelledError } from './errors.js';
import { tryLock } from './lock.js';
import { type DownloadTarget, readMeta } from './partial-file.js';
import { type ImageProgress, ProgressMeter } from './progress.js';

export type { CachedImage, ImageFormat, PartialImage, PruneOptions, RemovedEntry } from './cache-contents.js';

/** What the cache needs of an image: where it comes from and what its bytes must hash to. */
export interface ImageSource {
  url: string;
  sha256: string;
  /** qcow2 (the default) or raw; only the file's extension depends on it. */
  format?: ImageFormat;
}

export interface EnsureOptions {
  /** Cancels this caller's wait; the download stops only when every caller has cancelled. */
  signal?: AbortSignal;
  onProgress?: (progress: ImageProgress) => void;
}

/** An image known by its publisher's SHA-512 only: the cache computes its SHA-256 while checking it. */
export interface Sha512Source {
  url: string;
  sha512: string;
  format?: ImageFormat;
}

/** A verified image in the cache. */
export interface EnsuredImage {
  path: string;
  size: number;
  sha256: string;
  /** True when the image was already in the cache when `ensure` was called. */
  cached: boolean;
}

export interface ImageCacheOptions {
  dir: string;
  /** Injected for tests; the global fetch by default. */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; injected for tests. */
  now?: () => number;
  /** Abort a download when no byte arrived for this long (default 30 s); the partial is kept. */
  stallTimeoutMs?: number;
  /** Refuse images larger than this (default 64 GiB). */
  maxBytes?: number;
  /** How often a process waiting for another one's download looks again (default 500 ms). */
  lockPollMs?: number;
  /** Partial downloads untouched for this long are removed by prune (default 7 days). */
  partialMaxAgeMs?: number;
}

export const DEFAULT_STALL_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_IMAGE_BYTES = 64 * 1024 ** 3;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Lowercase hexadecimal digits in each digest a request may name. */
const HEX_DIGITS: Record<DigestAlgorithm, number> = { sha256: 64, sha512: 128 };

/**
 * Refuses, before any file is looked at, what no download could serve (a malformed digest,
 * a URL we do not fetch) and a caller that has already cancelled.
 */
function checkRequest(expected: ExpectedDigest, url: string, options: EnsureOptions): void {
  const { algorithm, hex } = expected;
  if (!/^[0-9a-f]*$/.test(hex) || hex.length !== HEX_DIGITS[algorithm])
    throw new ImageCacheError(
      `"${hex}" is not a ${algorithm} digest (${HEX_DIGITS[algorithm]} lowercase hexadecimal characters)`,
    );
  checkUrl(url);
  if (options.signal?.aborted) throw new ImageDownloadCancelledError(url);
}

/** One download: `key` names its partial and lock files (the SHA-256, or `sha512-<hex>`). */
interface Job {
  url: string;
  key: string;
  expected: ExpectedDigest;
  format: ImageFormat;
}

/** One download shared by every in-process caller asking for the same digest. */
interface Flight {
  promise: Promise<{ path: string; size: number; sha256: string }>;
  callers: Set<{ onProgress?: ((p: ImageProgress) => void) | undefined }>;
  controller: AbortController;
  meter: ProgressMeter;
}

export class ImageCache {
  readonly dir: string;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly stallTimeoutMs: number;
  private readonly maxBytes: number;
  private readonly lockPollMs: number;
  private readonly partialMaxAgeMs: number;
  private readonly flights = new Map<string, Flight>();

  constructor(options: ImageCacheOptions) {
    this.dir = options.dir;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
    this.stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_IMAGE_BYTES;
    this.lockPollMs = Math.min(1000, options.lockPollMs ?? 500);
    this.partialMaxAgeMs = options.partialMaxAgeMs ?? 7 * DAY_MS;
  }

  /** The path a verified image of this digest and format has. */
  pathFor(sha256: string, format: ImageFormat = 'qcow2'): string {
    return join(this.dir, `${sha256}.${extension(format)}`);
  }

  /**
   * Returns the verified image, downloading it first when it is not cached. Concurrent
   * calls for one digest share one download (in this process, and through the lock file
   * across processes); each caller gets progress and may cancel on its own.
   */
  async ensure(image: ImageSource, options: EnsureOptions = {}): Promise<EnsuredImage> {
    const { sha256 } = image;
    const expected: ExpectedDigest = { algorithm: 'sha256', hex: sha256 };
    checkRequest(expected, image.url, options);
    const format = image.format ?? 'qcow2';
    const present = await this.findVerified(sha256, format);
    if (present) return { ...present, sha256, cached: true };
    return this.download({ url: image.url, key: sha256, expected, format }, options);
  }

  /**
   * Downloads an image its publisher lists with a SHA-512 only, checks that digest and
   * computes the SHA-256 in the same pass; the verified file is stored by its SHA-256 like
   * any other. Always downloads (the SHA-256 is what finds a cached file, and it is not
   * known before); a mismatch deletes the file; an interrupted download resumes.
   */
  async ensureBySha512(image: Sha512Source, options: EnsureOptions = {}): Promise<EnsuredImage> {
    const expected: ExpectedDigest = { algorithm: 'sha512', hex: image.sha512 };
    checkRequest(expected, image.url, options);
    const format = image.format ?? 'qcow2';
    return this.download({ url: image.url, key: `sha512-${image.sha512}`, expected, format }, options);
  }

  /** True when a verified image with this digest is cached. */
  async has(sha256: string): Promise<boolean> {
    for (const format of ['qcow2', 'raw'] as const) {
      if ((await stat(this.pathFor(sha256, format)).catch(() => undefined))?.isFile()) return true;
    }
    return false;
  }

  /** Verified images in the cache. */
  list(): Promise<CachedImage[]> {
    return listCached(this.dir);
  }

  /** Partial (interrupted or running) downloads. */
  partials(): Promise<PartialImage[]> {
    return listPartials(this.dir);
  }

  /**
   * Removes stale partial downloads, then evicts images least recently used first until
   * the cache holds at most `maxBytes`. Never removes a kept digest, nor anything locked
   * (a download in progress here or in another process): each removal takes the lock.
   */
  prune(options: PruneOptions = {}): Promise<RemovedEntry[]> {
    return pruneCache(
      { dir: this.dir, now: this.now(), partialMaxAgeMs: this.partialMaxAgeMs, busy: (key) => this.flights.has(key) },
      options,
    );
  }

  /** The verified file for a digest, touched as used; a file stored under the other format's extension is renamed (same bytes). */
  private async findVerified(sha256: string, format: ImageFormat): Promise<{ path: string; size: number } | undefined> {
    const path = this.pathFor(sha256, format);
    let info = await stat(path).catch(() => undefined);
    if (!info) {
      const other = this.pathFor(sha256, format === 'qcow2' ? 'raw' : 'qcow2');
      if (!(await stat(other).catch(() => undefined))?.isFile()) return undefined;
      await rename(other, path).catch(() => undefined);
      info = await stat(path).catch(() => undefined);
    }
    if (!info?.isFile()) return undefined;
    // atime is set by hand: data directories are often mounted noatime or relatime.
    const seconds = this.now() / 1000;
    await utimes(path, seconds, info.mtime).catch(() => undefined);
    return { path, size: info.size };
  }

  /** Joins the download of `job.key` already in flight in this process, or starts it. */
  private download(job: Job, options: EnsureOptions): Promise<EnsuredImage> {
    const flight = this.flights.get(job.key) ?? this.startFlight(job);
    return this.join(flight, job.url, job.key, options);
  }

  private startFlight(image: Job): Flight {
    const controller = new AbortController();
    const callers: Flight['callers'] = new Set();
    const meter = new ProgressMeter((p) => {
      for (const c of callers) {
        try {
          c.onProgress?.(p);
        } catch {
          /* a caller's broken progress handler must not break the download of the others */
        }
      }
    }, this.now);
    const flight: Flight = { promise: Promise.resolve({ path: '', size: 0, sha256: '' }), callers, controller, meter };
    flight.promise = this.run(image, controller.signal, meter).finally(() => {
      if (this.flights.get(image.key) === flight) this.flights.delete(image.key);
    });
    // The shared promise is observed through each caller's own promise; this keeps a
    // download nobody waits for any more (all cancelled) from being an unhandled rejection.
    flight.promise.catch(() => undefined);
    this.flights.set(image.key, flight);
    return flight;
  }

  private join(flight: Flight, url: string, key: string, options: EnsureOptions): Promise<EnsuredImage> {
    const caller = { onProgress: options.onProgress };
    flight.callers.add(caller);
    const current = flight.meter.current;
    if (current && options.onProgress) options.onProgress(current);
    return new Promise<EnsuredImage>((resolve, reject) => {
      const signal = options.signal;
      const onAbort = (): void => {
        flight.callers.delete(caller);
        if (flight.callers.size === 0) {
          // Nobody wants it any more: stop, keep the partial, and let the next caller start afresh.
          if (this.flights.get(key) === flight) this.flights.delete(key);
          flight.controller.abort();
        }
        reject(new ImageDownloadCancelledError(url));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (r) => {
          signal?.removeEventListener('abort', onAbort);
          flight.callers.delete(caller);
          resolve({ ...r, cached: false });
        },
        (err: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          flight.callers.delete(caller);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }

  /** The flight's work: take the lock (waiting for another process), then download unless that process finished it. */
  private async run(
    image: Job,
    signal: AbortSignal,
    meter: ProgressMeter,
  ): Promise<{ path: string; size: number; sha256: string }> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const partialPath = join(this.dir, `${image.key}.partial`);
    const target: DownloadTarget = {
      url: image.url,
      expected: image.expected,
      partialPath,
      metaPath: `${partialPath}.json`,
      finalPath: (sha256) => this.pathFor(sha256, image.format),
    };
    const release = await this.waitForLock(image, target, signal, meter);
    try {
      if (image.expected.algorithm === 'sha256') {
        const present = await this.findVerified(image.expected.hex, image.format);
        if (present) return { ...present, sha256: image.expected.hex };
      }
      const { size, sha256 } = await downloadImage(target, {
        fetch: this.fetch,
        stallTimeoutMs: this.stallTimeoutMs,
        maxBytes: this.maxBytes,
        signal,
        progress: (phase, bytes, total, force) => meter.update(phase, bytes, total, force),
      });
      return {
        ...((await this.findVerified(sha256, image.format)) ?? { path: target.finalPath(sha256), size }),
        sha256,
      };
    } finally {
      await release();
    }
  }

  /** Takes the digest's lock; while another process holds it, reports that process's progress from its partial file. */
  private async waitForLock(
    image: Job,
    target: DownloadTarget,
    signal: AbortSignal,
    meter: ProgressMeter,
  ): Promise<() => Promise<void>> {
    for (;;) {
      if (signal.aborted) throw new ImageDownloadCancelledError(image.url);
      const release = await tryLock(lockPath(this.dir, image.key));
      if (release) return release;
      const size = (await stat(target.partialPath).catch(() => undefined))?.size ?? 0;
      meter.update('wait', size, (await readMeta(target.metaPath))?.total, true);
      try {
        await sleep(this.lockPollMs, undefined, { signal });
      } catch {
        throw new ImageDownloadCancelledError(image.url);
      }
    }
  }
}

function extension(format: ImageFormat): string {
  return format === 'raw' ? 'img' : 'qcow2';
}
