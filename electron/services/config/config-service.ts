/** The config as the front ends see it: loaded (or created on first start), or why it cannot be. */
import type { ConfigState } from '../../../shared/ipc.js';
import { type ConfigStore } from './config-store.js';
import { ConfigInvalidError, ConfigReadError } from './document.js';

export class ConfigService {
  constructor(private readonly store: ConfigStore) {}

  /** Loads the config; a broken file is reported (with every problem), never replaced. */
  async state(): Promise<ConfigState> {
    try {
      const { config, created } = await this.store.loadOrCreate();
      return { path: this.store.file, created, config };
    } catch (err) {
      if (err instanceof ConfigInvalidError) return { path: this.store.file, created: false, issues: err.issues };
      if (err instanceof ConfigReadError) return { path: this.store.file, created: false, error: err.message };
      throw err;
    }
  }
}
