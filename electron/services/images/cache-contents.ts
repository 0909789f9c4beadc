/**
 * What the image cache's directory holds (layout: image-cache.ts), and pruning it: the
 * verified images, the partial downloads with what their sidecars say, and removal of
 * stale partials and of images least recently used first. Every removal takes the
 * digest's lock, so that nothing a download here or in another process is writing, or a
 * caller is being handed, goes.
 */
import type { Stats } from 'node:fs';
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isLocked, tryLock } from './lock.js';
import { readMeta } from './partial-file.js';

/** The image's format: only the file's extension depends on it (`.qcow2`, or `.img` for raw). */
export type ImageFormat = 'qcow2' | 'raw';

/** A verified image in the cache directory. */
export interface CachedImage {
  sha256: string;
  format: ImageFormat;
  path: string;
  size: number;
  /** When the image was last handed out (its atime, set explicitly on every use). */
  lastUsed: Date;
}

/** A partial (interrupted or running) download in the cache directory. */
export interface PartialImage {
  /** The digest the download is checked against: the config's SHA-256, or a publisher's SHA-512 (exactly one is set). */
  sha256?: string;
  sha512?: string;
  path: string;
  /** Bytes downloaded so far. */
  size: number;
  /** The image's size, when the server said it. */
  total?: number;
  url?: string;
  modified: Date;
}

/** What {@link pruneCache} removes. */
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

/** One file {@link pruneCache} removed (or, on a dry run, would remove). */
export interface RemovedEntry {
  /** As in {@link PartialImage}: a SHA-512 only for a partial download of an image known by it. */
  sha256?: string;
  sha512?: string;
  kind: 'image' | 'partial';
  path: string;
  size: number;
  lastUsed: Date;
}

/** What pruning needs of the cache it prunes. */
export interface PruneContext {
  dir: string;
  /** Now, in milliseconds since the epoch. */
  now: number;
  /** Partial downloads untouched for longer are stale. */
  partialMaxAgeMs: number;
  /** True while this process downloads under `key` (its lock is ours then, so the lock alone would not say). */
  busy: (key: string) => boolean;
}

const CACHED_FILE = /^([0-9a-f]{64})\.(qcow2|img)$/;
const PARTIAL_FILE = /^(?:([0-9a-f]{64})|sha512-([0-9a-f]{128}))\.partial$/;

/** The lock file of a digest's download (`key`: the SHA-256, or `sha512-<hex>`). */
export function lockPath(dir: string, key: string): string {
  return join(dir, `${key}.lock`);
}

/** Verified images in the cache. */
export async function listCached(dir: string): Promise<CachedImage[]> {
  const out: CachedImage[] = [];
  for (const { match: m, path, info } of await filesNamed(dir, CACHED_FILE)) {
    out.push({ sha256: m[1]!, format: m[2] === 'img' ? 'raw' : 'qcow2', path, size: info.size, lastUsed: info.atime });
  }
  return out;
}

/** Partial (interrupted or running) downloads. */
export async function listPartials(dir: string): Promise<PartialImage[]> {
  const out: PartialImage[] = [];
  for (const { match: m, path, info } of await filesNamed(dir, PARTIAL_FILE)) {
    const meta = await readMeta(`${path}.json`);
    const entry: PartialImage = {
      ...(m[1] ? { sha256: m[1] } : { sha512: m[2]! }),
      path,
      size: info.size,
      modified: info.mtime,
    };
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
export async function pruneCache(ctx: PruneContext, options: PruneOptions = {}): Promise<RemovedEntry[]> {
  const keep = new Set(options.keep ?? []);
  const removed: RemovedEntry[] = [];
  const now = ctx.now;
  for (const p of await listPartials(ctx.dir)) {
    const stale = now - p.modified.getTime() > ctx.partialMaxAgeMs;
    // A SHA-512 download is never kept: the config holds SHA-256 digests only.
    const kept = p.sha256 !== undefined && keep.has(p.sha256);
    if (!stale && !(options.partials === 'unkept' && !kept)) continue;
    const key = p.sha256 ?? `sha512-${p.sha512!}`;
    if (await removeLocked(ctx, key, [p.path, `${p.path}.json`], options.dryRun)) {
      const digest = p.sha256 !== undefined ? { sha256: p.sha256 } : { sha512: p.sha512! };
      removed.push({ ...digest, kind: 'partial', path: p.path, size: p.size, lastUsed: p.modified });
    }
  }
  const images = (await listCached(ctx.dir)).sort((a, b) => a.lastUsed.getTime() - b.lastUsed.getTime());
  let total = images.reduce((sum, i) => sum + i.size, 0);
  const limit = options.maxBytes ?? 0;
  for (const image of images) {
    if (total <= limit) break;
    if (keep.has(image.sha256)) continue;
    if (await removeLocked(ctx, image.sha256, [image.path], options.dryRun)) {
      removed.push({
        sha256: image.sha256,
        kind: 'image',
        path: image.path,
        size: image.size,
        lastUsed: image.lastUsed,
      });
      total -= image.size;
    }
  }
  return removed;
}

/** The directory's regular files whose names match `pattern`; none while it does not exist yet. */
async function filesNamed(
  dir: string,
  pattern: RegExp,
): Promise<Array<{ match: RegExpExecArray; path: string; info: Stats }>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: Array<{ match: RegExpExecArray; path: string; info: Stats }> = [];
  for (const name of names) {
    const match = pattern.exec(name);
    if (!match) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) out.push({ match, path, info });
  }
  return out;
}

/** Removes `paths` under the digest's lock; false (nothing removed) when the digest is busy. */
async function removeLocked(ctx: PruneContext, key: string, paths: string[], dryRun = false): Promise<boolean> {
  if (ctx.busy(key)) return false;
  if (dryRun) return !(await isLocked(lockPath(ctx.dir, key)));
  const release = await tryLock(lockPath(ctx.dir, key));
  if (!release) return false;
  try {
    for (const path of paths) await unlink(path).catch(() => undefined);
    return true;
  } finally {
    await release();
  }
}
