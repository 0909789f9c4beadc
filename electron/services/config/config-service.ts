/** The config as the front ends see it: loaded (or created on first start), or why it cannot be. */
import { readFile } from 'node:fs/promises';
import type { ConfigIssue } from '../../../shared/config.js';
import type { ConfigState } from '../../../shared/ipc.js';
import { lineOfPath } from './issue-lines.js';
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
      if (err instanceof ConfigInvalidError)
        return { path: this.store.file, created: false, issues: await this.withLines(err.issues) };
      if (err instanceof ConfigReadError) return { path: this.store.file, created: false, error: err.message };
      throw err;
    }
  }

  /** The issues with the line of the file each is on (a person edits lines, validation speaks paths). */
  private async withLines(issues: readonly ConfigIssue[]): Promise<Array<ConfigIssue & { line?: number }>> {
    const text = await readFile(this.store.file, 'utf8').catch(() => undefined);
    return issues.map((issue) => {
      const line = text === undefined ? undefined : lineOfPath(text, issue.path);
      return line === undefined ? { ...issue } : { ...issue, line };
    });
  }
}
