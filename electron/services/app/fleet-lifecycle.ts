/**
 * The backend's lazy lifecycle: built from the config on first use (a {@link FleetAssembly}
 * and its {@link FleetWatch}), dropped when the config changes, rebuilt by the next call.
 * A rebuilt backend inherits what the old one had seen of the proxies.
 */
import type { ResolvedKVMConfig } from '../../../shared/config.js';
import type { FleetAssembly } from './fleet-assembly.js';
import { readSettingsOrDefaults } from '../settings/settings-file.js';
import { FleetHealthMonitor, type Probe } from './fleet-health.js';
import { FleetStatsSampler, type StatsClock } from './fleet-stats.js';
import { type AppEventListener, FleetWatch, type SeenRecords } from './fleet-watch.js';
import { repeatsIdle } from '../stats/idle-repeat.js';
import { repeatsHealth } from '../health/health-repeat.js';
import type { FleetHealth } from '../../../shared/health.js';
import type { FleetStats } from '../../../shared/stats.js';

/** A backend that is open, with its watcher. */
export interface Live {
  backend: FleetAssembly;
  watch: FleetWatch;
  /** Traffic and CPU per proxy of the proxies the watcher knows, from the connected hosts. */
  stats: FleetStatsSampler;
  /** Health through each ready proxy, every 30 s. */
  health: FleetHealthMonitor;
  /**
   * When the last sample that said something new was taken (the last one sent to the
   * windows; the samples since repeat it: stats/idle-repeat.ts). A window holding a sample
   * at least that recent has what the latest says.
   */
  statsNewsAt: () => number;
}

export interface FleetLifecycleOptions {
  /** The config to build from, read afresh on each open (rejects when it cannot drive the provider). */
  kvmConfig: () => Promise<ResolvedKVMConfig>;
  /** Builds the hosts, provider, images and credentials for a config. */
  openBackend: (config: ResolvedKVMConfig) => FleetAssembly;
  emit: AppEventListener;
  reconcileIntervalMs: number;
  /** The stats sampler's and health monitor's clock (tests drive it). */
  statsClock?: StatsClock;
  /** The app's settings file (the health probe's URLs); absent: the defaults. */
  settingsFile?: string;
  /** The health probe (default: through the network; tests pass their own). */
  probe?: Probe;
}

export class FleetLifecycle {
  private opening: Promise<Live> | undefined;
  /** Set by a reset that closed a backend; taken by the next one to open. */
  private inherited: Promise<SeenRecords | undefined> | undefined;
  private closedForGood = false;
  /** The backend once it is open (until a reset): what a background job may use without building one. */
  private current: Live | undefined;

  constructor(private readonly options: FleetLifecycleOptions) {}

  /** True once {@link shutDown} was called: nothing opens again. */
  get closed(): boolean {
    return this.closedForGood;
  }

  /** The backend if it is open now; undefined rather than building one. */
  ifOpen(): Live | undefined {
    return this.current;
  }

  /** The open backend, built now if there is none. */
  open(): Promise<Live> {
    if (this.closedForGood) return Promise.reject(new Error('the app is shutting down'));
    if (!this.opening) {
      const inherited = this.inherited;
      this.inherited = undefined;
      this.opening = this.options
        .kvmConfig()
        .then(async (config) => this.wire(this.options.openBackend(config), await inherited));
      // A config that cannot be used now may be fixed by the next call: do not keep the failure (nor lose the inheritance).
      this.opening.catch(() => {
        this.opening = undefined;
        this.inherited ??= inherited;
      });
    }
    return this.opening;
  }

  /** Drops the backend (connections, subscriptions, timer): the next call builds it from the file. */
  async reset(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    this.current = undefined;
    // Taken synchronously, so that a call racing this reset already builds on it.
    if (opening && !this.closedForGood)
      this.inherited = opening.then(
        (o) => o.watch.seen,
        () => undefined,
      );
    const live = await opening?.catch(() => undefined);
    if (!live) return;
    live.stats.close();
    live.health.close();
    await live.watch.close();
    await live.backend.close();
  }

  /** From now on nothing opens (a call fails saying the app is shutting down); {@link reset} then drops what is open. */
  shutDown(): void {
    this.closedForGood = true;
  }

  private wire(backend: FleetAssembly, inherited: SeenRecords | undefined): Live {
    const watch = new FleetWatch({
      backend,
      emit: this.options.emit,
      reconcileIntervalMs: this.options.reconcileIntervalMs,
      ...(inherited ? { inherited } : {}),
    });
    let sent: FleetStats | undefined;
    let newsAt = 0;
    const stats = new FleetStatsSampler({
      hosts: () =>
        backend.hosts
          .statuses()
          .filter((h) => h.state === 'connected')
          .map((h) => h.name),
      apiFor: (host) => backend.apiFor(host),
      proxies: () => watch.seen.values(),
      emit: (figures) => {
        // A sample with no figures that changes nothing (a stopped fleet) is not sent again (stats/idle-repeat.ts).
        if (repeatsIdle(sent, figures)) return;
        sent = figures;
        newsAt = figures.at;
        this.options.emit('proxy:stats', figures);
      },
      ...(this.options.statsClock ? { clock: this.options.statsClock } : {}),
    });
    stats.start();
    const { settingsFile, probe, statsClock } = this.options;
    let reported: FleetHealth | undefined;
    const health = new FleetHealthMonitor({
      proxies: () => watch.seen.values(),
      connected: () =>
        new Set(
          backend.hosts
            .statuses()
            .filter((h) => h.state === 'connected')
            .map((h) => h.name),
        ),
      credentials: (name) => backend.credentials.get(name),
      ...(backend.tunnelFor ? { tunnelFor: (host: string) => backend.tunnelFor?.(host) } : {}),
      settings: async () => (settingsFile ? (await readSettingsOrDefaults(settingsFile)).health : {}),
      emit: (figures) => {
        // A report that changes nothing (a stopped fleet's "unknown") is not sent again (health/health-repeat.ts).
        if (repeatsHealth(reported, figures)) return;
        reported = figures;
        this.options.emit('proxy:health', figures);
      },
      ...(probe ? { probe } : {}),
      ...(statsClock ? { clock: statsClock } : {}),
    });
    health.start();
    this.current = { backend, watch, stats, health, statsNewsAt: () => newsAt };
    return this.current;
  }
}
