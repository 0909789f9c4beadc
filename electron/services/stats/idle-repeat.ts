/**
 * Whether a fleet sample says nothing its predecessor did not: no proxy has figures in either
 * (all stopped, or none started long enough for a rate), the same proxies, the same failed
 * hosts and cadence. Such a sample is not sent to the windows again (fleet-lifecycle.ts): a
 * stopped fleet of 1,000 would otherwise send 1,000 rows of dashes every 5 s while a window
 * shows the table, for a page that draws exactly what it drew (bench (i)). Pure.
 */
import type { FleetStats } from '../../../shared/stats.js';

export function repeatsIdle(before: FleetStats | undefined, now: FleetStats): boolean {
  if (!before || before.intervalMs !== now.intervalMs) return false;
  if (before.failedHosts.length !== now.failedHosts.length || before.proxies.length !== now.proxies.length)
    return false;
  for (let i = 0; i < now.failedHosts.length; i++) {
    const a = before.failedHosts[i]!;
    const b = now.failedHosts[i]!;
    if (a.host !== b.host || a.error !== b.error) return false;
  }
  for (let i = 0; i < now.proxies.length; i++) {
    const a = before.proxies[i]!;
    const b = now.proxies[i]!;
    if (a.rates !== null || b.rates !== null || a.totals || b.totals) return false;
    if (a.host !== b.host || a.domain !== b.domain || a.name !== b.name) return false;
  }
  return true;
}
