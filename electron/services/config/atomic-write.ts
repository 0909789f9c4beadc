/**
 * Atomic file replacement: write a temporary file beside the target, flush it, rename it
 * over the target, flush the directory. A crash at any point leaves either the old file
 * or the new one, never a mix.
 */
import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The parts of node:fs/promises that atomic writes use; tests inject failing ones. */
export interface AtomicFs {
  open: typeof fsp.open;
  rename: typeof fsp.rename;
  unlink: typeof fsp.unlink;
}

export interface AtomicWriteOptions {
  /** File mode of the new file; 0600 by default (config and credentials are private). */
  mode?: number;
  fs?: AtomicFs;
}

/** The temporary name used for `target`: hidden, unique per writer. */
export function temporaryName(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Replaces `target` with `data` atomically. On failure the target is untouched and the temporary file removed. */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const fs = options.fs ?? fsp;
  const tmp = temporaryName(target);
  try {
    const handle = await fs.open(tmp, 'wx', options.mode ?? 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.unlink(tmp).catch(() => undefined);
    throw err;
  }
  // Flush the directory entry so that the rename itself survives a power cut. Some
  // filesystems refuse fsync on a directory; the data is already safe then.
  try {
    const dir = await fs.open(dirname(target), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    /* best effort */
  }
}
