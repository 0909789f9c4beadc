/**
 * A JSON file's parsed contents, read again only when the file changed. The credentials
 * and secrets files are read for every proxy a health round probes: read and validated
 * whole each time, 1,000 proxies cost 1,000 reads of a 1,000-entry file, about 2 s of CPU
 * every 30 s (docs/performance.md). A change is told by the file's identity, size and
 * times (nanoseconds; the stores replace the file by rename, so every write is a new
 * inode). Even a `stat` per read was a fifth of a health round's CPU, so a file checked
 * less than {@link RECHECK_MS} ago is not checked again: a write in this process (any
 * store, {@link noteWritten}) is seen at once, another process's within that time.
 */
import { readFile, stat } from 'node:fs/promises';

/** How long a file's check holds for reads in this process (another process's write is seen within it). */
export const RECHECK_MS = 1_000;

/** Per file path: how many times this process has written it (PrivateJsonFile says so after each write). */
const writes = new Map<string, number>();

/** Says that this process has just replaced `file`: every cache of it checks it again at its next read. */
export function noteWritten(file: string): void {
  writes.set(file, (writes.get(file) ?? 0) + 1);
}

export class ParsedFileCache<T> {
  private cached: { stamp: string; value: T; checkedAt: number; writes: number } | undefined;
  private pending: { stamp: string; value: Promise<T> } | undefined;

  constructor(
    readonly file: string,
    /** Parses and validates the text (throwing says what is wrong; nothing is cached then). */
    private readonly parse: (text: string) => T,
    /** What a missing file holds. */
    private readonly missing: () => T,
    /** How long a check holds (tests shorten it). */
    private readonly recheckMs = RECHECK_MS,
  ) {}

  /**
   * The contents as of now. The value is shared between callers until the file changes:
   * read it, never change it (a read-modify-write reads the file itself).
   */
  async read(): Promise<T> {
    const now = performance.now();
    const written = writes.get(this.file) ?? 0;
    const cached = this.cached;
    if (cached && cached.writes === written && now - cached.checkedAt < this.recheckMs) return cached.value;
    let stamp: string;
    try {
      const s = await stat(this.file, { bigint: true });
      stamp = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.cached = undefined;
      return this.missing();
    }
    if (this.cached?.stamp === stamp) {
      this.cached.checkedAt = now;
      this.cached.writes = written;
      return this.cached.value;
    }
    // Reads that find the same change wait for one read of it.
    if (this.pending?.stamp !== stamp) {
      const value = this.load(stamp, now, written);
      this.pending = { stamp, value };
      void value
        .catch(() => undefined)
        .finally(() => {
          if (this.pending?.value === value) this.pending = undefined;
        });
    }
    return this.pending.value;
  }

  /** The file read and parsed from disk now, bypassing the cache: a read-modify-write's own copy, free to change. */
  async readFresh(): Promise<T> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.missing();
      throw err;
    }
    return this.parse(text);
  }

  private async load(stamp: string, checkedAt: number, written: number): Promise<T> {
    const value = await this.readFresh();
    // Text read after the stat is as new as the stamp or newer: a newer one has a new stamp, and is read again then.
    this.cached = { stamp, value, checkedAt, writes: written };
    return value;
  }
}
