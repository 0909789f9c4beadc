/**
 * A download's files in the cache directory: the `.partial` file (always a prefix of the
 * image), its `.partial.json` sidecar (what a resume must check: the URL, the validators,
 * the size), and the verified file's move to its final name, durably. download.ts writes
 * the partial; the cache (image-cache.ts) reads the sidecars to report partial downloads.
 */
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DigestPass, ExpectedDigest } from './digest-pass.js';
import { ImageDigestMismatchError } from './errors.js';

/** Where one digest's download lives. */
export interface DownloadTarget {
  url: string;
  expected: ExpectedDigest;
  partialPath: string;
  /** `<key>.partial.json`: what a resume needs to know about the partial file. */
  metaPath: string;
  /** Where the verified file goes, from its SHA-256. */
  finalPath: (sha256: string) => string;
}

/** A verified download. */
export interface Downloaded {
  size: number;
  sha256: string;
}

/** The sidecar of a partial file. */
export interface PartialMeta {
  url: string;
  etag?: string;
  lastModified?: string;
  total?: number;
}

/** Reads a partial's sidecar; undefined when absent or not ours. */
export async function readMeta(path: string): Promise<PartialMeta | undefined> {
  try {
    const data = JSON.parse(await readFile(path, 'utf8')) as Partial<PartialMeta>;
    if (typeof data.url !== 'string') return undefined;
    const meta: PartialMeta = { url: data.url };
    if (typeof data.etag === 'string') meta.etag = data.etag;
    if (typeof data.lastModified === 'string') meta.lastModified = data.lastModified;
    if (typeof data.total === 'number' && Number.isSafeInteger(data.total)) meta.total = data.total;
    return meta;
  } catch {
    return undefined;
  }
}

/** Removes the partial file and its sidecar: the next attempt starts from nothing. */
export async function discardPartial(target: DownloadTarget): Promise<void> {
  await unlink(target.partialPath).catch(() => undefined);
  await unlink(target.metaPath).catch(() => undefined);
}

/** Checks the digest of the bytes written: a mismatch deletes the partial, a match gives it its final name. */
export async function verifyAndComplete(target: DownloadTarget, hash: DigestPass, bytes: number): Promise<Downloaded> {
  const result = hash.finish();
  if (!result.matches) {
    await discardPartial(target);
    throw new ImageDigestMismatchError(
      target.expected.hex,
      result.actual,
      target.url,
      bytes,
      target.expected.algorithm,
    );
  }
  return complete(target, bytes, result.sha256);
}

/** Gives a verified partial its final name, durably: data flushed first, then the rename, then the directory. */
export async function complete(target: DownloadTarget, bytes: number, sha256: string): Promise<Downloaded> {
  const file = await open(target.partialPath, 'r');
  try {
    await file.sync();
  } finally {
    await file.close();
  }
  const finalPath = target.finalPath(sha256);
  await rename(target.partialPath, finalPath);
  await unlink(target.metaPath).catch(() => undefined);
  try {
    const dir = await open(dirname(finalPath), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    /* some filesystems refuse fsync on a directory; the data itself is flushed */
  }
  return { size: bytes, sha256 };
}
