/**
 * Proxy health, probed through the proxy itself (one HTTP request with its credentials
 * every 30 s): healthy, slow (answered, but later than the slow threshold), failing (with
 * the last error and since when), unknown (not running, no address, no credentials here,
 * or its host is not connected). With an echo URL set, the exit address the outside sees.
 */
import { z } from 'zod';

export const HEALTH_STATES = ['healthy', 'slow', 'failing', 'unknown'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export const ProxyHealthSchema = z.object({
  host: z.string(),
  domain: z.string(),
  name: z.string(),
  state: z.enum(HEALTH_STATES),
  /** When the proxy entered this state (ms since the epoch). */
  since: z.number(),
  /** When it was last probed; absent while unknown without a probe. */
  checkedAt: z.number().optional(),
  /** Connect to the answer's headers, of the last probe that got an answer. */
  latencyMs: z.number().nonnegative().optional(),
  /** The HTTP status of the last answer. */
  status: z.number().int().optional(),
  /** The address the echo URL saw, the last time it answered one. */
  exitAddress: z.string().optional(),
  /** True when the last echo answer differed from the one before. */
  exitChanged: z.boolean().optional(),
  /**
   * What is wrong with the exit address, in words for a person, when something is: it
   * changed since the last answer, or it differs from what the same host's other proxies
   * show. Set by the backend; the Proxies row and the inspector show it as a warning.
   */
  exitWarning: z.string().optional(),
  /** Why it is failing or unknown (or what the echo URL got wrong). */
  lastError: z.string().optional(),
});
export type ProxyHealth = z.infer<typeof ProxyHealthSchema>;

export const FleetHealthSchema = z.object({
  /** When the last round of probes ended; 0 before the first. */
  at: z.number(),
  proxies: z.array(ProxyHealthSchema),
});
export type FleetHealth = z.infer<typeof FleetHealthSchema>;

/**
 * One point of a proxy's latency history: when it was probed, and the latency of the
 * answer; null when the probe got none (failing). The health monitor keeps the last hour
 * (one point a probe, 30 s apart) in memory; `proxies:stats` with `historyOf` sends it.
 */
export const LatencyPointSchema = z.object({ at: z.number(), latencyMs: z.number().nonnegative().nullable() });
export type LatencyPoint = z.infer<typeof LatencyPointSchema>;
