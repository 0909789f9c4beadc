/**
 * The fleet's traffic and load as the host sees it (one CONNECT_GET_ALL_DOMAIN_STATS call
 * per host): per proxy, bytes and packets a second into and out of its VM, and CPU as a
 * percentage of one host core. `proxies:stats` answers the figures now (and the last
 * hour, when asked); `proxy:stats` pushes them after every sample.
 */
import { z } from 'zod';
import { LatencyPointSchema } from './health.js';

const Rate = z.number().nonnegative();

/** What a proxy moved and used per second over the last sampling interval. */
export const ProxyRatesSchema = z.object({
  /** Bytes a second into the proxy's VM (requests from clients and answers from upstream). */
  inBps: Rate,
  /** Bytes a second out of it. */
  outBps: Rate,
  inPps: Rate,
  outPps: Rate,
  /** CPU time per wall time, in percent of one host core (a guest busy on two vCPUs: 200). */
  cpuPercent: Rate,
});
export type ProxyRates = z.infer<typeof ProxyRatesSchema>;

/**
 * What a proxy's VM moved and used since its domain last started (libvirt's cumulative
 * counters of the run; a restart begins them again from zero): the figures behind the rates.
 */
export const ProxyTotalsSchema = z.object({
  inBytes: Rate,
  outBytes: Rate,
  inPackets: Rate,
  outPackets: Rate,
  cpuSeconds: Rate,
});
export type ProxyTotals = z.infer<typeof ProxyTotalsSchema>;

/** One point of a proxy's history: the rates of the interval that ended at `at` (ms since the epoch). */
export const RatePointSchema = ProxyRatesSchema.extend({ at: z.number() });
export type RatePoint = z.infer<typeof RatePointSchema>;

export const ProxyStatsSchema = z.object({
  host: z.string(),
  /** The libvirt domain (the proxy's instance id). */
  domain: z.string(),
  name: z.string(),
  /**
   * The latest rates; null when there is none yet: not running, just started or restarted
   * (two readings of one run are needed), or its host did not answer the last sample.
   */
  rates: ProxyRatesSchema.nullable(),
  /** The counters of the latest reading (since the domain started); absent when the last sample read none (not running, host did not answer). */
  totals: ProxyTotalsSchema.optional(),
  /** The last hour, point by point (oldest first); only when `proxies:stats` was asked for it (`history`, or `historyOf` this proxy). */
  history: z.array(RatePointSchema).optional(),
  /**
   * The total rate (in + out bytes a second) of the newest points of the last hour, oldest
   * first: what the table's sparkline draws; only when `proxies:stats` was asked with `sparkPoints`.
   */
  spark: z.array(z.number()).optional(),
  /** The last hour of health probes' latency (oldest first); only for the proxy `historyOf` names. */
  latency: z.array(LatencyPointSchema).optional(),
});
export type ProxyStats = z.infer<typeof ProxyStatsSchema>;

/** The fleet's figures after one sample. */
export const FleetStatsSchema = z.object({
  /** When the sample was taken (ms since the epoch); 0 before the first. */
  at: z.number(),
  /** How often samples are taken now: 5 s while someone watches, 60 s otherwise. */
  intervalMs: z.number().int().positive(),
  /** Hosts whose stats call failed in this sample, with why. */
  failedHosts: z.array(z.object({ host: z.string(), error: z.string() })),
  proxies: z.array(ProxyStatsSchema),
});
export type FleetStats = z.infer<typeof FleetStatsSchema>;

/** A proxy by its host and libvirt domain, as in {@link ProxyStatsSchema}. */
export const ProxyRefSchema = z.strictObject({ host: z.string().min(1), domain: z.string().min(1) });
export type ProxyRef = z.infer<typeof ProxyRefSchema>;

/**
 * `proxies:stats`: `watch` asks for the fast cadence for the next {@link WATCH_LEASE_MS}
 * (a window showing the figures renews it; one that closes simply stops), `history` for
 * each proxy's last hour, `sparkPoints` for each proxy's recent total rate (a table's
 * sparklines), `historyOf` for one proxy's last hour of traffic, CPU and latency (the
 * inspector's Traffic tab: only the watched proxy's history crosses the bridge).
 */
export const FleetStatsInputSchema = z.strictObject({
  watch: z.boolean().optional(),
  history: z.boolean().optional(),
  /** With `history`: only each proxy's newest N points (the table's sparklines draw 60; an hour of 1,000 proxies is ~65 MB of JSON). */
  historyPoints: z.number().int().min(1).max(720).optional(),
  historyOf: ProxyRefSchema.optional(),
  /**
   * Each proxy's `spark` of its newest N points: a table seeds its sparklines from it (60
   * numbers a proxy; `history` with `historyPoints` 60 would be 60 points of 6 fields).
   */
  sparkPoints: z.number().int().min(1).max(720).optional(),
  /**
   * The `at` of the figures the caller holds: when no sample is newer, the answer has the
   * same `at` and no proxies (a lease renewal then carries no rows; without `history` or
   * `historyOf` only). Callers keep what they have for an answer that is not newer.
   */
  since: z.number().optional(),
});

/** How long one `watch: true` keeps the fast cadence. */
export const WATCH_LEASE_MS = 30_000;
