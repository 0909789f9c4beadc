/** The fleet summary's figures (views/FleetSummary.tsx): pure, over the stores' maps. */
import { HEALTH_STATES, type HealthState, type ProxyHealth } from '../shared/health.js';
import type { ProxyRates } from '../shared/stats.js';

export interface FleetTotals {
  /** Proxies per health state; a proxy without a probe yet counts as unknown. */
  counts: Record<HealthState, number>;
  /** Bytes a second in and out, summed over the proxies with figures now. */
  inBps: number;
  outBps: number;
  /** How many proxies the traffic figures cover (the others have none yet). */
  measured: number;
}

/** The health state a row is counted and filtered under. */
export const healthStateOf = (health: ProxyHealth | undefined): HealthState => health?.state ?? 'unknown';

export function fleetTotals(
  keys: Iterable<string>,
  health: Readonly<Record<string, ProxyHealth>>,
  rates: Readonly<Record<string, ProxyRates | null>>,
): FleetTotals {
  const counts = Object.fromEntries(HEALTH_STATES.map((s) => [s, 0])) as Record<HealthState, number>;
  let inBps = 0;
  let outBps = 0;
  let measured = 0;
  for (const key of keys) {
    counts[healthStateOf(health[key])]++;
    const r = rates[key];
    if (!r) continue;
    inBps += r.inBps;
    outBps += r.outBps;
    measured++;
  }
  return { counts, inBps, outBps, measured };
}
