/**
 * A JSON file's parsed contents, read again only when the file changed. The credentials
 * and secrets files are read for every proxy a health round probes: read and validated
 * whole each time, 1,000 proxies cost 1,000 reads of a 1,000-entry file, about 2 s of CPU
 * every 30 s (docs/performance.md). A change is told by the file's identity, size and
 * times (nanoseconds; the stores replace the file by rename, so every write is a new
 * inode), one `stat` per read; another process's write is seen the same way.
 */
import { readFile, stat } from 'node:fs/promises';

export class ParsedFileCache<T> {
  private cached: { stamp: string; value: T } | undefined;
  private pending: { stamp: string; value: Promise<T> } | undefined;

  constructor(
    readonly file: string,
    /** Parses and validates the text (throwing says what is wrong; nothing is cached then). */
    private readonly parse: (text: string) => T,
    /** What a missing file holds. */
    private readonly missing: () => T,
  ) {}

  /**
   * The contents as of now. The value is shared between callers until the file changes:
   * read it, never change it (a read-modify-write reads the file itself).
   */
  async read(): Promise<T> {
    let stamp: string;
    try {
      const s = await stat(this.file, { bigint: true });
      stamp = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.cached = undefined;
      return this.missing();
    }
    if (this.cached?.stamp === stamp) return this.cached.value;
    // Reads that find the same change wait for one read of it.
    if (this.pending?.stamp !== stamp) {
      const value = this.load(stamp);
      this.pending = { stamp, value };
      void value.catch(() => undefined).finally(() => {
        if (this.pending?.value === value) this.pending = undefined;
      });
    }
    return this.pending.value;
  }

  private async load(stamp: string): Promise<T> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.missing();
      throw err;
    }
    const value = this.parse(text);
    // Text read after the stat is as new as the stamp or newer: a newer one has a new stamp, and is read again then.
    this.cached = { stamp, value };
    return value;
  }
}
