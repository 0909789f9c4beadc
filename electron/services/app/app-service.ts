/**
 * The app's backend, the same for the Electron window and `egress-desk serve`: a thin
 * facade over its parts. The config file and its writes (config-writes.ts); the backend
 * built from it on first use and rebuilt after a write (fleet-lifecycle.ts), with the fleet
 * watcher that turns host status and libvirt lifecycle events into the contract's events
 * (fleet-watch.ts); long operations as tasks; serial consoles. Its {@link AppService.areas}
 * answer the contract, one object per area with a method per channel, so the router's
 * handlers are derived from them (electron/ipc/handlers.ts) rather than written out.
 */
import type { ResolvedKVMConfig } from '../../../shared/config.js';
import type { AreaService, ContractService, EventName, EventPayload } from '../../../shared/ipc.js';
import type { ConfigService } from '../config/config-service.js';
import type { ConfigStore } from '../config/config-store.js';
import { TaskService } from '../tasks/task-service.js';
import { DefaultsArea, ImagesArea, MachineTypesArea } from './catalog-area.js';
import { autoBakeAfter } from './bake-task.js';
import { readSettingsOrDefaults } from '../settings/settings-file.js';
import { ConfigWatch } from '../config/config-watch.js';
import { dataDir, keyringDir } from '../config/paths.js';
import { ConfigWrites } from './config-writes.js';
import { ConsoleSessions } from './console-sessions.js';
import type { FleetAssembly } from './fleet-assembly.js';
import type { Probe } from './fleet-health.js';
import type { StatsClock } from './fleet-stats.js';
import type { AppEventListener } from './fleet-watch.js';
import { HostsArea } from './hosts-area.js';
import { FleetLifecycle } from './fleet-lifecycle.js';
import { ExpiryWatch } from './expiry-watch.js';
import { AutoReplaceWatch } from './auto-replace-watch.js';
import { ProxiesArea } from './proxies-area.js';
import { SettingsArea } from './settings-area.js';
import { GatewayArea } from './gateway-area.js';
import { AppGateway } from '../gateway/app-gateway.js';
import { GatewaySettingsSchema } from '../../../shared/gateway.js';
import { dirname } from 'node:path';

export interface AppServiceOptions {
  store: ConfigStore;
  config: ConfigService;
  /** Builds the hosts, provider, images and credentials for a config. */
  openBackend: (config: ResolvedKVMConfig) => FleetAssembly;
  tasks?: TaskService;
  now?: () => number;
  /** How often the fleet is listed again in the background, once it has been opened (default 60 s; 0 turns it off). */
  reconcileIntervalMs?: number;
  /** Notice edits of the config file made outside the app (default true). */
  watchConfig?: boolean;
  /** The traffic sampler's and health monitor's clock (default the process's; tests drive it). */
  statsClock?: StatsClock;
  /** The app's own settings file (settings.json in the data directory). */
  settingsFile?: string;
  /** The app's keyring directory for checksum files' signatures (default `<data dir>/keyrings` of this process). */
  keyringDir?: string;
  /** The health probe (default through the network; tests pass their own). */
  probe?: Probe;
  /** False: no automatic bake after launches (the settings file is not asked). */
  autoBake?: false;
  /** How often seen proxies are checked for an expiry that passed (default 30 s; 0 turns the timer off). */
  expiryIntervalMs?: number;
  /** How often the health figures are checked for auto-replace (default 30 s; 0 turns the timer off). */
  autoReplaceIntervalMs?: number;
}

/** Every area but `app`, which is the front end's own (its version, data directory). */
export type BackendAreas = Omit<ContractService, 'app'>;

export class AppService {
  readonly tasks: TaskService;
  /** Serial console sessions (console:open/write/close); closed with the backend. */
  readonly consoles: ConsoleSessions;
  /** The config file: read, exported, previewed and written one write at a time. */
  readonly config: ConfigWrites;
  /** The contract's areas, each a method per channel (`hosts:trust` → `areas.hosts.trust`). */
  readonly areas: BackendAreas;
  private readonly listeners = new Set<AppEventListener>();
  private readonly live: FleetLifecycle;
  /** Deletes the seen proxies whose expiry passed (expiry-watch.ts). */
  readonly expiry: ExpiryWatch;
  /** Replaces your proxies that have failed health for a while, when settings.json asks (auto-replace-watch.ts). */
  readonly autoReplace: AutoReplaceWatch;
  private readonly watch: ConfigWatch | undefined;
  /** The gateway the app runs, when it has a settings file (services/gateway/app-gateway.ts). */
  readonly gateway: AppGateway | undefined;

  constructor(options: AppServiceOptions) {
    const now = options.now ?? Date.now;
    this.tasks = options.tasks ?? new TaskService({ now });
    this.tasks.setListener((task) => this.emit('task:update', task));
    const emit: AppEventListener = (event, payload) => this.emit(event, payload);
    this.config = new ConfigWrites({
      store: options.store,
      config: options.config,
      tasks: this.tasks,
      reset: () => this.reset(),
      backend: () => this.backend(),
      now,
      changed: (state) => this.emit('config:changed', state),
    });
    this.live = new FleetLifecycle({
      kvmConfig: () => this.config.kvm(),
      openBackend: options.openBackend,
      emit,
      reconcileIntervalMs: options.reconcileIntervalMs ?? 60_000,
      ...(options.statsClock ? { statsClock: options.statsClock } : {}),
      ...(options.settingsFile ? { settingsFile: options.settingsFile } : {}),
      ...(options.probe ? { probe: options.probe } : {}),
    });
    this.consoles = new ConsoleSessions({ backend: () => this.backend(), emit });
    this.expiry = new ExpiryWatch({
      live: () => this.live.ifOpen(),
      tasks: this.tasks,
      now,
      intervalMs: options.expiryIntervalMs ?? 30_000,
    });
    this.autoReplace = new AutoReplaceWatch({
      live: () => this.live.ifOpen(),
      tasks: this.tasks,
      now,
      intervalMs: options.autoReplaceIntervalMs ?? 30_000,
      ...(options.settingsFile ? { settingsFile: options.settingsFile } : {}),
    });
    // An edit by hand while the app runs: taken when it loads, reported (with its lines) when not.
    if (options.watchConfig !== false) {
      this.watch = new ConfigWatch({
        file: options.store.file,
        onChange: () =>
          void this.config
            .fileChanged()
            .then((state) => state && this.emit('config:changed', { ...state, by: 'file' }))
            .catch(() => undefined),
      });
    }
    // The gateway the app runs (issue 40): only with a settings file, which says whether it runs.
    const settingsFile = options.settingsFile;
    this.gateway = settingsFile
      ? new AppGateway({
          dataDir: dirname(settingsFile),
          fleet: () => {
            const live = this.live.ifOpen();
            if (!live) return undefined;
            const tunnelFor = live.backend.tunnelFor;
            return {
              proxies: () => live.watch.seen.values(),
              health: () => live.health.snapshot(),
              credentials: (name) => live.backend.credentials.get(name),
              tunnelFor: tunnelFor ? (host: string) => tunnelFor(host) : undefined,
            };
          },
          settings: async () => (await readSettingsOrDefaults(settingsFile)).gateway ?? GatewaySettingsSchema.parse({}),
          emit: (status) => this.emit('gateway:update', status),
          emitRequests: (entries) => this.emit('gateway:requests', entries),
        })
      : undefined;
    // Started when settings.json says so (off by default: no port is opened unasked).
    void this.gateway?.apply().catch(() => undefined);
    const tasks: AreaService<'tasks'> = {
      list: () => this.tasks.list(),
      cancel: (input) => ({ cancelled: this.tasks.cancel(input.id) }),
    };
    this.areas = {
      config: this.config,
      hosts: new HostsArea(() => this.backend(), this.config, options.settingsFile),
      machineTypes: new MachineTypesArea(this.config),
      images: new ImagesArea(
        () => this.backend(),
        this.config,
        this.tasks,
        options.keyringDir ?? keyringDir(dataDir()),
      ),
      defaults: new DefaultsArea(this.config),
      // A front end without a settings file (tests, embedders) has no way to turn it off: it does not bake by itself.
      proxies: new ProxiesArea(
        () => this.live.open(),
        this.tasks,
        (backend, launched) =>
          autoBakeAfter(backend, this.tasks, launched, () =>
            options.settingsFile && options.autoBake !== false
              ? readSettingsOrDefaults(options.settingsFile)
              : Promise.resolve({ autoBake: false }),
          ),
      ),
      settings: new SettingsArea(options.settingsFile),
      gateway: new GatewayArea(
        this.gateway,
        options.settingsFile,
        options.settingsFile ? dirname(options.settingsFile) : undefined,
      ),
      tasks,
      console: this.consoles,
    };
  }

  /** Every event of the contract; returns the unsubscribe. */
  subscribe(listener: AppEventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Cancels running tasks, stops listening and closes every connection. */
  async close(): Promise<void> {
    this.watch?.close();
    this.expiry.close();
    this.autoReplace.close();
    await this.gateway?.close();
    this.live.shutDown();
    await this.tasks.close();
    await this.reset();
    this.listeners.clear();
  }

  private async backend(): Promise<FleetAssembly> {
    return (await this.live.open()).backend;
  }

  /** Drops the backend and the consoles on it: the next call builds it from the file. */
  private async reset(): Promise<void> {
    this.consoles.closeAll(
      this.live.closed ? 'the app is closing' : 'the config changed and the connections were rebuilt: connect again',
    );
    await this.live.reset();
  }

  private emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) {
      try {
        listener(event, payload);
      } catch {
        // One front end's failure must not starve the others.
      }
    }
  }
}
