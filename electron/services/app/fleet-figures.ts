/** The stats sampler's and the health monitor's snapshots joined per proxy (pure): what `proxies stats` prints and `metrics` exposes. */
import type { FleetFigures, ProxyFigures } from '../../../shared/fleet-figures.js';
import type { FleetHealth } from '../../../shared/health.js';
import type { FleetStats } from '../../../shared/stats.js';
import { proxyKey } from '../../../shared/proxy-key.js';

/** Every proxy of `stats` with its health (null when `health` has none), by name then host. */
export function joinFigures(stats: FleetStats, health: FleetHealth): ProxyFigures[] {
  const byKey = new Map(health.proxies.map((h) => [proxyKey(h.host, h.domain), h]));
  return stats.proxies
    .map((p) => ({
      name: p.name,
      host: p.host,
      domain: p.domain,
      rates: p.rates,
      totals: p.totals ?? null,
      health: byKey.get(proxyKey(p.host, p.domain)) ?? null,
    }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.host.localeCompare(b.host));
}

/** {@link joinFigures} with when and which hosts failed (`unreachable`: hosts the listing could not reach, before the stats' own failures). */
export function fleetFigures(
  stats: FleetStats,
  health: FleetHealth,
  unreachable: FleetFigures['failedHosts'] = [],
): FleetFigures {
  const failedHosts = [...unreachable, ...stats.failedHosts.filter((f) => !unreachable.some((u) => u.host === f.host))];
  return { at: stats.at, failedHosts, proxies: joinFigures(stats, health) };
}
