/**
 * Traffic and health figures for {@link fakeProxies}, so that every row of the table draws
 * what a working fleet shows (sparkline, rates, CPU, health dot, latency, exit address)
 * instead of dashes. Answered on the wire like the listing (fake-listing.ts), and pushed as
 * `proxy:stats` / `proxy:health` events by bench (m). Deterministic: a round of one run and
 * a round of the next draw the same rows.
 */
import type { FleetHealth, HealthState } from '../../shared/health.js';
import type { ProxyRecordView } from '../../shared/proxies.js';
import type { FleetStats, ProxyRates } from '../../shared/stats.js';

const STATS_INTERVAL_MS = 5_000;

/** A rate that varies with the proxy and the sample, never all zero. */
function rates(i: number, sample: number): ProxyRates {
  const wave = 1 + Math.sin((i * 7 + sample) / 5);
  return {
    inBps: Math.round(2_000 + 40_000 * wave),
    outBps: Math.round(1_000 + 90_000 * wave),
    inPps: 3 + wave * 20,
    outPps: 2 + wave * 30,
    cpuPercent: 0.5 + wave * 6,
  };
}

/**
 * The fleet's stats at sample number `sample` (taken `at`); with `sparkPoints`, each running
 * proxy's total rate of the samples before it too, as the table's first ask is answered.
 */
export function fakeStats(
  proxies: readonly ProxyRecordView[],
  sample: number,
  at: number,
  sparkPoints = 0,
): FleetStats {
  return {
    at,
    intervalMs: STATS_INTERVAL_MS,
    failedHosts: [],
    proxies: proxies.map((p, i) => {
      const running = p.state === 'running';
      const spark =
        sparkPoints > 0 && running
          ? Array.from({ length: sparkPoints }, (_, k) => {
              const r = rates(i, sample - sparkPoints + k);
              return r.inBps + r.outBps;
            })
          : undefined;
      return {
        host: p.host,
        domain: p.id,
        name: p.name,
        rates: running ? rates(i, sample) : null,
        ...(spark ? { spark } : {}),
      };
    }),
  };
}

const STATES: HealthState[] = ['healthy', 'healthy', 'healthy', 'healthy', 'slow', 'failing'];

/** The fleet's health after round `round` (ended `at`): most healthy, some slow or failing, each with a latency and an exit address. */
export function fakeHealth(proxies: readonly ProxyRecordView[], round: number, at: number): FleetHealth {
  return {
    at,
    proxies: proxies.map((p, i) => {
      if (p.state !== 'running')
        return {
          host: p.host,
          domain: p.id,
          name: p.name,
          state: 'unknown',
          since: at - 600_000,
          lastError: 'not running',
        };
      const state = STATES[(i + round) % STATES.length]!;
      return {
        host: p.host,
        domain: p.id,
        name: p.name,
        state,
        since: at - ((i * 13_000) % 3_600_000),
        checkedAt: at,
        latencyMs: state === 'slow' ? 1_800 + (i % 400) : 20 + ((i * 7 + round) % 180),
        status: state === 'failing' ? 502 : 200,
        exitAddress: `198.51.100.${(i % 250) + 1}`,
        ...(state === 'failing' ? { lastError: 'connect ECONNREFUSED (the proxy did not answer)' } : {}),
      };
    }),
  };
}
