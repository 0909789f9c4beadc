/**
 * What the credentials and secrets files share: a JSON file holding one map of entries,
 * readable only by the user, changed read-modify-write one change at a time (per store
 * instance) and replaced atomically.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../config/atomic-write.js';
import { noteWritten } from './parsed-file-cache.js';

export class PrivateJsonFile<Data extends object, Entry> {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    /** Reads and validates the whole file (the default when it is missing). */
    private readonly read: () => Promise<Data>,
    /** The map inside the file's data, read and set back. */
    private readonly entries: {
      get: (data: Data) => Record<string, Entry>;
      set: (data: Data, entries: Record<string, Entry>) => void;
    },
  ) {}

  /** Applies `change` to the entries and writes the file (sorted by key, mode 0600, atomically), after the previous change. */
  update(change: (all: Map<string, Entry>) => void): Promise<void> {
    const job = this.queue.then(async () => {
      const data = await this.read();
      const all = new Map(Object.entries(this.entries.get(data)));
      change(all);
      this.entries.set(data, Object.fromEntries([...all].sort(([a], [b]) => a.localeCompare(b))));
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      try {
        await writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
      } finally {
        // Even a failed write may have replaced it: the next read checks.
        noteWritten(this.file);
      }
    });
    this.queue = job.catch(() => undefined);
    return job;
  }
}
