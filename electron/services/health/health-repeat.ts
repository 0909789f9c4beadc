/**
 * Whether a health report says nothing its predecessor did not: the same proxies in the same
 * order, each with every field as before (a probe moves `checkedAt`, so any probed proxy
 * makes a report new). Such a report is not sent to the windows again (fleet-lifecycle.ts): a
 * stopped fleet of 1,000 would otherwise send 1,000 unchanged "unknown: not running" rows
 * every 30 s. Auto-replace reads the monitor's snapshot itself and is not affected. Pure.
 */
import type { FleetHealth, ProxyHealth } from '../../../shared/health.js';

const FIELDS = [
  'host',
  'domain',
  'name',
  'state',
  'since',
  'checkedAt',
  'latencyMs',
  'status',
  'exitAddress',
  'exitChanged',
  'exitWarning',
  'lastError',
] as const satisfies ReadonlyArray<keyof ProxyHealth>;

export function repeatsHealth(before: FleetHealth | undefined, now: FleetHealth): boolean {
  if (!before || before.proxies.length !== now.proxies.length) return false;
  for (let i = 0; i < now.proxies.length; i++) {
    const a = before.proxies[i]!;
    const b = now.proxies[i]!;
    if (!sameHealth(a, b)) return false;
  }
  return true;
}

/** Whether two health records say the same in every field. */
export function sameHealth(a: ProxyHealth, b: ProxyHealth): boolean {
  if (a === b) return true;
  for (const f of FIELDS) if (a[f] !== b[f]) return false;
  return true;
}
