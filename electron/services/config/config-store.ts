/**
 * The app's own config file: loaded at start, created with the default on first start,
 * saved atomically. A file that does not validate is never overwritten: it may hold a
 * person's hand edits, and replacing it would lose them.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type ProviderConfig, validateProviderConfig } from '../../../shared/config.js';
import { writeFileAtomic } from './atomic-write.js';
import { defaultConfig } from './default-config.js';
import { ConfigInvalidError, ConfigReadError, loadConfigFile, serializeConfig } from './document.js';
import { updateYamlText } from './yaml-update.js';
import { messageOf } from '../../../shared/errors.js';

export interface LoadedConfig {
  config: ProviderConfig;
  /** True when the file did not exist and the default was written. */
  created: boolean;
}

/** A config file at a fixed path. */
export class ConfigStore {
  constructor(readonly file: string) {}

  /** Reads and validates the file. Throws ConfigReadError or ConfigInvalidError. */
  load(): Promise<ProviderConfig> {
    return loadConfigFile(this.file);
  }

  /** Reads the file, or writes and returns the default config when there is none. */
  async loadOrCreate(): Promise<LoadedConfig> {
    try {
      return { config: await this.load(), created: false };
    } catch (err) {
      if (!(err instanceof ConfigReadError) || err.reason !== 'no such file') throw err;
    }
    const config = defaultConfig();
    await this.write(config);
    return { config, created: true };
  }

  /**
   * Validates `config` and replaces the file with it. Refuses (nothing written) when
   * `config` is invalid, or when the file on disk does not validate itself.
   */
  async save(config: ProviderConfig): Promise<void> {
    const result = validateProviderConfig(config);
    if (!result.ok) throw new ConfigInvalidError(this.file, result.issues);
    try {
      await this.load();
    } catch (err) {
      const missing = err instanceof ConfigReadError && err.reason === 'no such file';
      if (!missing) throw new ConfigNotReplacedError(this.file, messageOf(err));
    }
    await this.write(result.config);
  }

  /**
   * Like {@link save}, for an edit of the current config: the file's YAML is changed in
   * place (comments and layout kept; only what differs is rewritten), see yaml-update.ts.
   */
  async update(config: ProviderConfig): Promise<void> {
    const result = validateProviderConfig(config);
    if (!result.ok) throw new ConfigInvalidError(this.file, result.issues);
    let text: string;
    try {
      await this.load();
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      const missing = err instanceof ConfigReadError && err.reason === 'no such file';
      if (!missing) throw new ConfigNotReplacedError(this.file, messageOf(err));
      return this.write(result.config);
    }
    // A .json config stays strict JSON (it has no comments to keep).
    const updated = this.isJson() ? undefined : updateYamlText(text, result.config);
    if (updated === undefined) return this.write(result.config);
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, updated);
  }

  private async write(config: ProviderConfig): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    // The file is read back by its name: a .json file must stay JSON.
    await writeFileAtomic(this.file, serializeConfig(config, this.isJson() ? 'json' : 'operator'));
  }

  private isJson(): boolean {
    return this.file.toLowerCase().endsWith('.json');
  }
}

/** Saving was refused because the current file does not validate; it is left as it is. */
export class ConfigNotReplacedError extends Error {
  override readonly name = 'ConfigNotReplacedError';
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(
      `${file} was not replaced: it does not validate, and replacing it could lose hand edits. Fix or move it first.\n${problem}`,
    );
  }
}
