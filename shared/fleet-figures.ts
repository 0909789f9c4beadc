/**
 * One proxy's figures as `egress-desk proxies stats` and `egress-desk metrics` report them:
 * its traffic and load from the host (shared/stats.ts) beside its health through the
 * proxy (shared/health.ts), joined by host and domain.
 */
import { z } from 'zod';
import { ProxyHealthSchema } from './health.js';
import { ProxyRatesSchema, ProxyTotalsSchema } from './stats.js';

export const ProxyFiguresSchema = z.object({
  name: z.string(),
  host: z.string(),
  domain: z.string(),
  /** Over the last sampling interval; null when there is none (see ProxyStats.rates). */
  rates: ProxyRatesSchema.nullable(),
  /** Since the domain started; null when the last sample read none. */
  totals: ProxyTotalsSchema.nullable(),
  /** The last probe's outcome; null when the proxy was not probed. */
  health: ProxyHealthSchema.nullable(),
});
export type ProxyFigures = z.infer<typeof ProxyFiguresSchema>;

export const FleetFiguresSchema = z.object({
  /** When the stats were sampled (ms since the epoch). */
  at: z.number(),
  /** Hosts that could not be listed or asked for stats, with why. */
  failedHosts: z.array(z.object({ host: z.string(), error: z.string() })),
  proxies: z.array(ProxyFiguresSchema),
});
export type FleetFigures = z.infer<typeof FleetFiguresSchema>;
