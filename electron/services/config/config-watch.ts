/**
 * Notices when the config file is changed by hand (an editor, a script, `git pull`) while
 * the app runs. The directory is watched, not the file: editors and our own atomic writes
 * replace the file with a rename, which ends a watch on the old inode. Bursts of events
 * (write, rename, chmod) are folded into one call after a short quiet time.
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface ConfigWatchOptions {
  file: string;
  /** Called once per burst of changes to the file (after `quietMs` without another). */
  onChange: () => void;
  /** Default 250 ms. */
  quietMs?: number;
}

export class ConfigWatch {
  private readonly watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ConfigWatchOptions) {
    const name = basename(options.file);
    try {
      this.watcher = watch(dirname(options.file), { persistent: false }, (_event, changed) => {
        // Some platforms give no name: then any change in the directory may be ours.
        if (changed !== null && changed !== name) return;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => options.onChange(), options.quietMs ?? 250);
        this.timer.unref();
      });
      this.watcher.on('error', () => this.close());
    } catch {
      // No directory yet (first start writes it) or no watching here: edits are then seen on the next read.
      this.watcher = undefined;
    }
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
  }
}
