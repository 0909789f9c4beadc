/**
 * One proxy's last hour of traffic, CPU and latency for the inspector's Traffic tab:
 * seeded from `proxies:stats` with `historyOf` (the only history that crosses the bridge
 * is the watched proxy's), then extended by the `proxy:stats` and `proxy:health` events,
 * and trimmed to the hour. Pure functions here; the panel owns the state.
 */
import type { FleetHealth, LatencyPoint } from '../shared/health.js';
import type { FleetStats, ProxyRef, RatePoint } from '../shared/stats.js';

/** What the Traffic tab charts. */
export interface ProxyHistory {
  rates: RatePoint[];
  latency: LatencyPoint[];
}

export const HISTORY_SPAN_MS = 3_600_000;

export const emptyHistory = (): ProxyHistory => ({ rates: [], latency: [] });

const isRef = (p: { host: string; domain: string }, ref: ProxyRef) => p.host === ref.host && p.domain === ref.domain;

/** Points newer than the last one kept, appended; then only the hour before the newest. */
function merged<T extends { at: number }>(kept: T[], more: T[]): T[] {
  const last = kept.at(-1)?.at ?? -Infinity;
  const out = [...kept, ...more.filter((p) => p.at > last)];
  const since = (out.at(-1)?.at ?? 0) - HISTORY_SPAN_MS;
  const first = out.findIndex((p) => p.at >= since);
  return first > 0 ? out.slice(first) : out;
}

/** The history after an answer of `proxies:stats` with `historyOf: ref` (its points replace what is kept; later events add on). */
export function seeded(history: ProxyHistory, stats: FleetStats, ref: ProxyRef): ProxyHistory {
  const p = stats.proxies.find((s) => isRef(s, ref));
  if (!p) return history;
  return {
    rates: merged(
      p.history ?? [],
      history.rates.filter((r) => r.at > (p.history?.at(-1)?.at ?? Infinity)),
    ),
    latency: merged(
      p.latency ?? [],
      history.latency.filter((l) => l.at > (p.latency?.at(-1)?.at ?? Infinity)),
    ),
  };
}

/** The history after a `proxy:stats` event: the proxy's latest rates as a point at the sample's time. */
export function withSample(history: ProxyHistory, stats: FleetStats, ref: ProxyRef): ProxyHistory {
  const rates = stats.proxies.find((s) => isRef(s, ref))?.rates;
  if (!rates || stats.at <= (history.rates.at(-1)?.at ?? -Infinity)) return history;
  return { ...history, rates: merged(history.rates, [{ at: stats.at, ...rates }]) };
}

/** The history after a `proxy:health` event: the latest probe's latency (null when it failed), once per probe. */
export function withProbe(history: ProxyHistory, health: FleetHealth, ref: ProxyRef): ProxyHistory {
  const h = health.proxies.find((s) => isRef(s, ref));
  if (!h?.checkedAt || h.checkedAt <= (history.latency.at(-1)?.at ?? -Infinity)) return history;
  const latencyMs = h.state === 'failing' || h.latencyMs === undefined ? null : h.latencyMs;
  return { ...history, latency: merged(history.latency, [{ at: h.checkedAt, latencyMs }]) };
}

/** Columns for uPlot: times in seconds, then one array per series (null: a gap). */
export function chartColumns<T extends { at: number }>(
  points: readonly T[],
  series: ReadonlyArray<(p: T) => number | null>,
): [number[], ...Array<Array<number | null>>] {
  return [points.map((p) => p.at / 1000), ...series.map((f) => points.map(f))];
}
