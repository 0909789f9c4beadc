/**
 * The config area: the file read, exported and previewed, and written one write at a time
 * (an import, or an in-app edit of hosts, machine types, images or defaults). Every write
 * is validated before it is saved, refused while tasks run, and rebuilds the backend.
 */
import {
  type ProviderConfig,
  type ResolvedKVMConfig,
  validateProviderConfig,
  withDefaults,
} from '../../../shared/config.js';
import { type ConfigDiff, diffConfigs } from '../../../shared/config-diff.js';
import { type CatalogEdit, applyCatalogEdit } from '../../../shared/catalog-edit.js';
import type {
  AreaService,
  ChannelInput,
  ChannelOutput,
  ConfigChanged,
  ConfigPreview,
  ConfigState,
} from '../../../shared/ipc.js';
import type { ConfigService } from '../config/config-service.js';
import type { ConfigStore } from '../config/config-store.js';
import { ConfigInvalidError, ConfigReadError, parseConfigText, serializeConfig } from '../config/document.js';
import { formatProxyUrl } from '../../../shared/proxy-url.js';
import type { TaskService } from '../tasks/task-service.js';
import { buildPac, buildProxyList, readyProxies } from './exports.js';
import type { FleetAssembly } from './fleet-assembly.js';

/** The config cannot drive the provider: it does not load, or has no kvm block. */
export class ConfigUnusableError extends Error {
  override readonly name = 'ConfigUnusableError';
}

/** An import while tasks run: they use the current config's connections. */
export class ConfigBusyError extends Error {
  override readonly name = 'ConfigBusyError';
}

export interface ConfigWritesOptions {
  store: ConfigStore;
  config: ConfigService;
  /** Writes are refused while any of these runs. */
  tasks: TaskService;
  /** Drops the backend after a write, so the next call builds it from the new file. */
  reset: () => Promise<void>;
  /** The open backend (the proxy exports list the fleet). */
  backend: () => Promise<FleetAssembly>;
  now: () => number;
  /**
   * Told after each write that saved the file (an import or an edit), with the config as
   * it is now: the app service emits it as `config:changed` (`by: 'app'`), so every window
   * follows an in-app write as it follows an edit by hand.
   */
  changed?: (state: ConfigChanged) => void;
}

type EditResult = { path: string; diff: ConfigDiff; config: ProviderConfig };

export class ConfigWrites implements AreaService<'config'> {
  /** The last config write (import or edit): the next one waits for it. */
  private writes: Promise<unknown> = Promise.resolve();
  /** The last config the file held that loaded: what the app runs on while the file is broken. */
  private lastGood: ProviderConfig | undefined;

  constructor(private readonly options: ConfigWritesOptions) {}

  async get(): Promise<ConfigState> {
    const state = await this.options.config.state();
    if (state.config) this.lastGood = state.config;
    return !state.config && this.lastGood ? { ...state, lastGood: true } : state;
  }

  /** The config as the file holds it now; rejects, saying why, when it does not load. Writes start from this. */
  async current(): Promise<ProviderConfig> {
    const state = await this.options.config.state();
    if (state.config) {
      this.lastGood = state.config;
      return state.config;
    }
    if (state.issues) throw new ConfigInvalidError(state.path, state.issues);
    throw new ConfigUnusableError(state.error ?? `${state.path} cannot be read`);
  }

  /**
   * The config the app works on: the file's, or, while the file is broken by hand, the last
   * one that loaded (the app keeps working; only writes, which would overwrite the person's
   * file, are refused: they start from {@link current}).
   */
  async inUse(): Promise<ProviderConfig> {
    try {
      return await this.current();
    } catch (err) {
      if (this.lastGood && (err instanceof ConfigInvalidError || err instanceof ConfigUnusableError))
        return this.lastGood;
      throw err;
    }
  }

  /**
   * The file changed outside the app. A config that loads and differs from the one in use
   * is taken (the backend is rebuilt from it, once no task runs on the old connections); a
   * broken one is not, and the app goes on with the last good config. Returns the state to
   * report, or undefined when nothing changed for the app (its own write, a touch).
   */
  async fileChanged(): Promise<ConfigState | undefined> {
    const before = this.lastGood;
    const state = await this.options.config.state();
    if (!state.config) return this.lastGood ? { ...state, lastGood: true } : state;
    if (before && JSON.stringify(before) === JSON.stringify(state.config)) return undefined;
    // Running tasks use the current connections: the edited config is taken once they are done.
    while (this.running().length) await new Promise((r) => setTimeout(r, 1_000));
    await this.oneWriteAtATime(async () => {
      this.lastGood = state.config;
      await this.options.reset();
    });
    return state;
  }

  /** The kvm block with its defaults applied; rejects for a config of another provider type. */
  async kvm(): Promise<ResolvedKVMConfig> {
    const config = await this.inUse();
    if (config.type !== 'kvm' || !config.kvm)
      throw new ConfigUnusableError(
        `the config's provider type is ${config.type}: this app manages kvm (set type: kvm and a kvm block)`,
      );
    return withDefaults(config.kvm);
  }

  async export(input: ChannelInput<'config:export'>): Promise<ChannelOutput<'config:export'>> {
    if (input.format === 'operator' || input.format === 'json') {
      const config = await this.current();
      return input.format === 'json'
        ? { text: serializeConfig(config, 'json'), fileName: 'egress-desk.json', mediaType: 'application/json' }
        : { text: serializeConfig(config, 'operator'), fileName: 'egress-desk.yaml', mediaType: 'application/yaml' };
    }
    const backend = await this.options.backend();
    const ready = readyProxies((await backend.provider.list()).proxies);
    if (input.format === 'pac')
      return {
        text: buildPac(ready, new Date(this.options.now())),
        fileName: 'proxy.pac',
        mediaType: 'application/x-ns-proxy-autoconfig',
      };
    const credentials = new Map(
      input.withCredentials
        ? await Promise.all(ready.map(async (p) => [p.name, await backend.credentials.get(p.name)] as const))
        : [],
    );
    return {
      text: buildProxyList(ready, (p) => formatProxyUrl(p.address, p.port, credentials.get(p.name), p.kind)),
      fileName: 'proxies.txt',
      mediaType: 'text/plain',
    };
  }

  async previewImport(input: ChannelInput<'config:previewImport'>): Promise<ConfigPreview> {
    let raw: unknown;
    try {
      raw = parseConfigText(input.text, input.syntax === 'json' ? 'import.json' : 'import.yaml');
    } catch (err) {
      if (err instanceof ConfigReadError) return { ok: false, error: err.message, issues: [] };
      throw err;
    }
    const result = validateProviderConfig(raw);
    const current = await this.options.store.load().catch(() => undefined);
    const diff = diffConfigs(current, raw);
    return result.ok ? { ok: true, issues: [], diff } : { ok: false, issues: result.issues, diff };
  }

  /** Validates and replaces the config file atomically; an invalid text is never saved. */
  import(input: ChannelInput<'config:import'>): Promise<{ path: string; diff: ConfigDiff }> {
    return this.oneWriteAtATime(() => this.importNow(input));
  }

  /**
   * Changes the config file through `mutate` (given a deep copy of the current config; it
   * returns the new one, or throws a typed error saying what is wrong). The result is
   * validated and saved atomically, then the backend is rebuilt from it, as after an
   * import; an invalid result is never saved. Refused while tasks run: they use the
   * current config's connections. The one write path for every in-app config edit
   * (hosts, machine types, images).
   */
  edit(mutate: (config: ProviderConfig) => ProviderConfig): Promise<EditResult> {
    return this.oneWriteAtATime(() => this.editNow(mutate));
  }

  /** One catalog edit through the shared check (the renderer's own) and the one write path. */
  async catalog(edit: CatalogEdit): Promise<{ path: string }> {
    const { path } = await this.edit((config) => applyCatalogEdit(config, edit));
    return { path };
  }

  private async importNow(input: ChannelInput<'config:import'>): Promise<{ path: string; diff: ConfigDiff }> {
    const file = input.syntax === 'json' ? 'import.json' : 'import.yaml';
    const result = validateProviderConfig(parseConfigText(input.text, file));
    if (!result.ok) throw new ConfigInvalidError(file, result.issues);
    this.refuseWhileBusy('import');
    const current = await this.options.store.load().catch(() => undefined);
    await this.options.store.save(result.config);
    this.lastGood = result.config;
    await this.options.reset();
    await this.report();
    return { path: this.options.store.file, diff: diffConfigs(current, result.config) };
  }

  private async editNow(mutate: (config: ProviderConfig) => ProviderConfig): Promise<EditResult> {
    const current = await this.current();
    const next = mutate(structuredClone(current));
    const result = validateProviderConfig(next);
    if (!result.ok) throw new ConfigInvalidError(this.options.store.file, result.issues);
    this.refuseWhileBusy('change the config');
    // In place: the person's comments and layout in the file survive an edit from the app.
    await this.options.store.update(result.config);
    this.lastGood = result.config;
    await this.options.reset();
    await this.report();
    return { path: this.options.store.file, diff: diffConfigs(current, result.config), config: result.config };
  }

  /**
   * Reports a write that saved the file: the state read back (so `created` and the config are
   * the file's), before the write's answer leaves, so a window sees the event no later than
   * the answer. The watcher's own notice of this write then finds nothing new (fileChanged).
   */
  private async report(): Promise<void> {
    if (!this.options.changed) return;
    const state = await this.options.config.state();
    this.options.changed({ ...state, by: 'app' });
  }

  /**
   * Config writes run one after another: each reads the file the previous one wrote, so two
   * edits at the same moment (two browser tabs, a host edit during a catalog save) both land.
   */
  private oneWriteAtATime<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write, write);
    this.writes = run.catch(() => undefined);
    return run;
  }

  private running() {
    return this.options.tasks.list().filter((t) => t.state === 'queued' || t.state === 'running');
  }

  private refuseWhileBusy(what: string): void {
    const running = this.running();
    if (running.length)
      throw new ConfigBusyError(
        `${running.length} task${running.length === 1 ? ' is' : 's are'} running (${running.map((t) => t.title).join(', ')}): wait for them or cancel them, then ${what}`,
      );
  }
}
