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
 */
import { mkdir, readdir, rename, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkUrl, type DownloadTarget, downloadImage, readMeta } from './download.js';
import { ImageCacheError, ImageDownloadCancelledError } from './errors.js';
import { isLocked, tryLock } from './lock.js';
import { type ImageProgress, ProgressMeter } from './progress.js';

export type ImageFormat = 'qcow2' | 'raw';

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

/** A verified image in the cache. */
export interface EnsuredImage {
  path: string;
  size: number;
  sha256: string;
  /** True when the image was already in the cache when `ensure` was called. */
  cached: boolean;
}

export interface CachedImage {
  sha256: string;
  format: ImageFormat;
  path: string;
  size: number;
  /** When the image was last handed out (its atime, set explicitly on every use). */
  lastUsed: Date;
}

export interface PartialImage {
  sha256: string;
  path: string;
  /** Bytes downloaded so far. */
  size: number;
  /** The image's size, when the server said it. */
  total?: number;
  url?: string;
  modified: Date;
}

export interface PruneOptions {
  /** Evict least recently used images until the cache holds at most this many bytes (default 0: all that may go). */
  maxBytes?: number;
  /** Digests never removed (the images a config references, or in use). */
  keep?: readonly string[];
  /** Which partial downloads go: only stale ones (the default), or also every one whose digest is not kept. */
  partials?: 'stale' | 'unkept';
  /** Report what would be removed, remove nothing. */
  dryRun?: boolean;
}

export interface RemovedEntry {
  sha256: string;
  kind: 'image' | 'partial';
  path: string;
  size: number;
  lastUsed: Date;
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
const SHA256 = /^[0-9a-f]{64}$/;
const CACHED_FILE = /^([0-9a-f]{64})\.(qcow2|img)$/;
const PARTIAL_FILE = /^([0-9a-f]{64})\.partial$/;

/** One download shared by every in-process caller asking for the same digest. */
interface Flight {
  promise: Promise<{ path: string; size: number }>;
  callers: Set<{ onProgress?: (p: ImageProgress) => void }>;
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
    const sha256 = image.sha256;
    if (!SHA256.test(sha256)) throw new ImageCacheError(`"${sha256}" is not a sha256 digest (64 lowercase hexadecimal characters)`);
    checkUrl(image.url);
    if (options.signal?.aborted) throw new ImageDownloadCancelledError(image.url);
    const format = image.format ?? 'qcow2';
    const present = await this.findVerified(sha256, format);
    if (present) return { ...present, sha256, cached: true };

    let flight = this.flights.get(sha256);
    if (!flight) flight = this.startFlight({ url: image.url, sha256, format });
    return this.join(flight, image.url, sha256, options);
  }

  /** True when a verified image with this digest is cached. */
  async has(sha256: string): Promise<boolean> {
    for (const format of ['qcow2', 'raw'] as const) {
      if ((await stat(this.pathFor(sha256, format)).catch(() => undefined))?.isFile()) return true;
    }
    return false;
  }

  /** Verified images in the cache. */
  async list(): Promise<CachedImage[]> {
    const out: CachedImage[] = [];
    for (const name of await this.names()) {
      const m = CACHED_FILE.exec(name);
      if (!m) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      out.push({ sha256: m[1]!, format: m[2] === 'img' ? 'raw' : 'qcow2', path, size: info.size, lastUsed: info.atime });
    }
    return out;
  }

  /** Partial (interrupted or running) downloads. */
  async partials(): Promise<PartialImage[]> {
    const out: PartialImage[] = [];
    for (const name of await this.names()) {
      const m = PARTIAL_FILE.exec(name);
      if (!m) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      const meta = await readMeta(`${path}.json`);
      const entry: PartialImage = { sha256: m[1]!, path, size: info.size, modified: info.mtime };
      if (meta?.total !== undefined) entry.total = meta.total;
      if (meta?.url !== undefined) entry.url = meta.url;
      out.push(entry);
    }
    return out;
  }

  /**
   * Removes stale partial downloads, then evicts images least recently used first until
   * the cache holds at most `maxBytes`. Never removes a kept digest, nor anything locked
   * (a download in progress here or in another process): each removal takes the lock.
   */
  async prune(options: PruneOptions = {}): Promise<RemovedEntry[]> {
    const keep = new Set(options.keep ?? []);
    const removed: RemovedEntry[] = [];
    const now = this.now();
    for (const p of await this.partials()) {
      const stale = now - p.modified.getTime() > this.partialMaxAgeMs;
      if (!stale && !(options.partials === 'unkept' && !keep.has(p.sha256))) continue;
      if (await this.removeLocked(p.sha256, [p.path, `${p.path}.json`], options.dryRun)) {
        removed.push({ sha256: p.sha256, kind: 'partial', path: p.path, size: p.size, lastUsed: p.modified });
      }
    }
    const images = (await this.list()).sort((a, b) => a.lastUsed.getTime() - b.lastUsed.getTime());
    let total = images.reduce((sum, i) => sum + i.size, 0);
    const limit = options.maxBytes ?? 0;
    for (const image of images) {
      if (total <= limit) break;
      if (keep.has(image.sha256)) continue;
      if (await this.removeLocked(image.sha256, [image.path], options.dryRun)) {
        removed.push({ sha256: image.sha256, kind: 'image', path: image.path, size: image.size, lastUsed: image.lastUsed });
        total -= image.size;
      }
    }
    return removed;
  }

  private async names(): Promise<string[]> {
    try {
      return await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  private lockPath(sha256: string): string {
    return join(this.dir, `${sha256}.lock`);
  }

  /** Removes `paths` under the digest's lock; false (nothing removed) when the digest is busy. */
  private async removeLocked(sha256: string, paths: string[], dryRun = false): Promise<boolean> {
    if (this.flights.has(sha256)) return false;
    if (dryRun) return !(await isLocked(this.lockPath(sha256)));
    const release = await tryLock(this.lockPath(sha256));
    if (!release) return false;
    try {
      for (const path of paths) await unlink(path).catch(() => undefined);
      return true;
    } finally {
      await release();
    }
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

  private startFlight(image: Required<ImageSource>): Flight {
    const controller = new AbortController();
    const callers: Flight['callers'] = new Set();
    const meter = new ProgressMeter(
      (p) => {
        for (const c of callers) {
          try {
            c.onProgress?.(p);
          } catch {
            /* a caller's broken progress handler must not break the download of the others */
          }
        }
      },
      this.now,
    );
    const flight: Flight = { promise: Promise.resolve({ path: '', size: 0 }), callers, controller, meter };
    flight.promise = this.run(image, controller.signal, meter).finally(() => {
      if (this.flights.get(image.sha256) === flight) this.flights.delete(image.sha256);
    });
    // The shared promise is observed through each caller's own promise; this keeps a
    // download nobody waits for any more (all cancelled) from being an unhandled rejection.
    flight.promise.catch(() => undefined);
    this.flights.set(image.sha256, flight);
    return flight;
  }

  private join(flight: Flight, url: string, sha256: string, options: EnsureOptions): Promise<EnsuredImage> {
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
          if (this.flights.get(sha256) === flight) this.flights.delete(sha256);
          flight.controller.abort();
        }
        reject(new ImageDownloadCancelledError(url));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (r) => {
          signal?.removeEventListener('abort', onAbort);
          flight.callers.delete(caller);
          resolve({ ...r, sha256, cached: false });
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
  private async run(image: Required<ImageSource>, signal: AbortSignal, meter: ProgressMeter): Promise<{ path: string; size: number }> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const partialPath = join(this.dir, `${image.sha256}.partial`);
    const target: DownloadTarget = {
      url: image.url,
      sha256: image.sha256,
      partialPath,
      metaPath: `${partialPath}.json`,
      finalPath: this.pathFor(image.sha256, image.format),
    };
    const release = await this.waitForLock(image, target, signal, meter);
    try {
      const present = await this.findVerified(image.sha256, image.format);
      if (present) return present;
      const size = await downloadImage(target, {
        fetch: this.fetch,
        stallTimeoutMs: this.stallTimeoutMs,
        maxBytes: this.maxBytes,
        signal,
        progress: (phase, bytes, total, force) => meter.update(phase, bytes, total, force),
      });
      return (await this.findVerified(image.sha256, image.format)) ?? { path: target.finalPath, size };
    } finally {
      await release();
    }
  }

  /** Takes the digest's lock; while another process holds it, reports that process's progress from its partial file. */
  private async waitForLock(image: Required<ImageSource>, target: DownloadTarget, signal: AbortSignal, meter: ProgressMeter): Promise<() => Promise<void>> {
    for (;;) {
      if (signal.aborted) throw new ImageDownloadCancelledError(image.url);
      const release = await tryLock(this.lockPath(image.sha256));
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
