/**
 * Traffic and CPU per proxy (shared/stats.ts), keyed like the proxies store (host/domain).
 * Filled by `proxy:stats` events; while the Proxies table is shown, {@link StatsStore.watch}
 * asks the backend for the 5 s cadence and renews that lease, and seeds each row's
 * sparkline from the last hour so a reopened window does not start blank.
 */
import { create } from 'zustand';
import type { FleetHealth } from '../../shared/health.js';
import { type FleetStats, type ProxyRates, type ProxyRef, WATCH_LEASE_MS } from '../../shared/stats.js';
import { type ProxyKey, proxyKey } from '../../shared/proxy-key.js';
import { SparkRing } from '../sparkline.js';
import { storeApi } from './store-api.js';

/** Points a sparkline keeps: five minutes at 5 s. */
export const SPARK_POINTS = 60;

export interface StatsStore {
  /** By proxy key: the latest rates, null while there is none (see ProxyStats.rates). */
  rates: Record<ProxyKey, ProxyRates | null>;
  /**
   * By proxy key: total bytes a second (in + out), the last {@link SPARK_POINTS} samples. A
   * proxy keeps its ring from sample to sample (a sample is added to it in place); the record
   * is new with each sample and holds only the proxies of the latest.
   */
  spark: Record<ProxyKey, SparkRing>;
  /** When the figures applied last were sampled. */
  at: number;
  apply(stats: FleetStats): void;
  /**
   * Watches while the returned function is not called: the lease is renewed at half its
   * length. `seed: false` skips the first ask's sparkline points (the Hosts view draws none).
   */
  watch(options?: { seed?: boolean }): () => void;
}

const total = (r: ProxyRates) => r.inBps + r.outBps;

export const useStatsStore = create<StatsStore>((set) => ({
  rates: {},
  spark: {},
  at: 0,
  apply(stats) {
    set((s) => {
      if (stats.at <= s.at) return {}; // an answer older than an event already applied
      const rates: StatsStore['rates'] = {};
      const spark: StatsStore['spark'] = {};
      for (const p of stats.proxies) {
        const key = proxyKey(p.host, p.domain);
        rates[key] = p.rates;
        if (p.spark) spark[key] = SparkRing.of(p.spark, SPARK_POINTS);
        else {
          const ring = s.spark[key] ?? new SparkRing(SPARK_POINTS);
          if (p.rates) ring.add(total(p.rates));
          spark[key] = ring;
        }
      }
      return { rates, spark, at: stats.at };
    });
  },
  watch(options = {}) {
    const api = storeApi();
    const off = api.on('proxy:stats', (stats) => useStatsStore.getState().apply(stats));
    // A renewal says which sample the store has: the answer then carries rows only when a newer one exists.
    const ask = (seed: boolean) =>
      api.proxies
        .stats({ watch: true, ...(seed ? { sparkPoints: SPARK_POINTS } : { since: useStatsStore.getState().at }) })
        .then(
          (stats) => useStatsStore.getState().apply(stats),
          () => undefined, // the next renewal asks again; the table shows dashes meanwhile
        );
    void ask(options.seed !== false);
    const timer = setInterval(() => void ask(false), WATCH_LEASE_MS / 2);
    return () => {
      clearInterval(timer);
      off();
    };
  },
}));

/**
 * One proxy's history while the returned function is not called (the inspector's Traffic
 * tab): asked with `historyOf` under the watch lease, renewed at half its length, and the
 * `proxy:stats` and `proxy:health` events between two asks. No store holds it: the tab does.
 */
export function watchProxyHistory(
  ref: ProxyRef,
  on: {
    answer: (stats: FleetStats) => void;
    error: (err: unknown) => void;
    sample: (stats: FleetStats) => void;
    probe: (health: FleetHealth) => void;
  },
): () => void {
  const api = storeApi();
  let live = true;
  const ask = () =>
    api.proxies.stats({ watch: true, historyOf: ref }).then(
      (stats) => live && on.answer(stats),
      (err: unknown) => live && on.error(err),
    );
  void ask();
  const timer = setInterval(() => void ask(), WATCH_LEASE_MS / 2);
  const offs = [api.on('proxy:stats', on.sample), api.on('proxy:health', on.probe)];
  return () => {
    live = false;
    clearInterval(timer);
    offs.forEach((off) => off());
  };
}
