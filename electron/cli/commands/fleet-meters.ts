/**
 * The stats sampler and the health monitor as a CLI command runs them (`proxies stats`,
 * `metrics`): over the provider's listing (taken again each minute while they run, so
 * proxies launched or deleted elsewhere appear and go; every 10 s while one is paused or
 * crashed, which health calls failing from the state alone, so a resume is seen within
 * a health round or so, not a minute later), the hosts the listing reached,
 * the credentials file, and the settings file's health URLs.
 */
import { FleetHealthMonitor, isBrokenState } from '../../services/app/fleet-health.js';
import { FleetStatsSampler } from '../../services/app/fleet-stats.js';
import type { FleetListing } from '../../services/provider/kvm/fleet.js';
import { readSettingsOrDefaults, settingsPath } from '../../services/settings/settings-file.js';
import type { CliContext } from '../context.js';
import type { CliProvider } from './proxies-provider.js';

export interface FleetMeters {
  stats: FleetStatsSampler;
  health: FleetHealthMonitor;
  /** The listing now. */
  listing(): FleetListing;
  /** Starts the timers: stats at the watched cadence, health every `healthIntervalMs`, the listing each minute. */
  start(): void;
  close(): void;
}

export interface FleetMetersOptions {
  /** Stats cadence while running (the sampler is watched: someone reads the figures). */
  statsIntervalMs: number;
  /** Default 30 s. */
  healthIntervalMs?: number;
}

export async function openFleetMeters(
  ctx: CliContext,
  { provider, backend }: CliProvider,
  options: FleetMetersOptions,
): Promise<FleetMeters> {
  let listing = await provider.list();
  const reached = () => listing.hosts.filter((h) => h.ok).map((h) => h.host);
  const stats = new FleetStatsSampler({
    hosts: reached,
    apiFor: (host) => backend.apiFor(host),
    proxies: () => listing.proxies,
    watchIntervalMs: options.statsIntervalMs,
  });
  const release = stats.watch();
  const health = new FleetHealthMonitor({
    proxies: () => listing.proxies,
    connected: () => new Set(reached()),
    credentials: (name) => backend.credentials.get(name),
    ...(backend.tunnelFor ? { tunnelFor: (host: string) => backend.tunnelFor?.(host) } : {}),
    settings: async () => (await readSettingsOrDefaults(settingsPath(ctx.dataDir))).health,
    ...(options.healthIntervalMs ? { intervalMs: options.healthIntervalMs } : {}),
  });
  let relist: NodeJS.Timeout | undefined;
  let listedAt = Date.now();
  let listing$: Promise<void> | undefined;
  const tick = () => {
    const broken = listing.proxies.some((p) => isBrokenState(p.state));
    if (listing$ || (!broken && Date.now() - listedAt < 60_000)) return;
    listing$ = provider
      .list()
      .then(
        (l) => {
          listing = l;
          listedAt = Date.now();
        },
        () => undefined,
      )
      .finally(() => (listing$ = undefined));
  };
  return {
    stats,
    health,
    listing: () => listing,
    start: () => {
      stats.start();
      health.start();
      relist = setInterval(tick, 10_000);
    },
    close: () => {
      release();
      clearInterval(relist);
      stats.close();
      health.close();
    },
  };
}
