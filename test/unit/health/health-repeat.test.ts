/** electron/services/health/health-repeat.ts: a health report that changes nothing is not sent again. */
import { describe, expect, it } from 'vitest';
import { repeatsHealth } from '../../../electron/services/health/health-repeat.js';
import type { FleetHealth, ProxyHealth } from '../../../shared/health.js';

const unknown = (name: string): ProxyHealth => ({
  host: 'edge-a',
  domain: `ep-${name}`,
  name,
  state: 'unknown',
  since: 1000,
  lastError: 'not running',
});
const report = (at: number, proxies: ProxyHealth[]): FleetHealth => ({ at, proxies });

describe('repeatsHealth', () => {
  it('is true for a later report of the same proxies with the same fields, new objects or not', () => {
    const a = report(1000, [unknown('a'), unknown('b')]);
    expect(repeatsHealth(undefined, a)).toBe(false);
    expect(repeatsHealth(a, report(31_000, [unknown('a'), unknown('b')]))).toBe(true);
    expect(repeatsHealth(a, report(31_000, a.proxies))).toBe(true);
  });

  it('is false when a proxy comes or goes, or any field moves (a probe moves checkedAt)', () => {
    const a = report(1000, [unknown('a'), unknown('b')]);
    expect(repeatsHealth(a, report(31_000, [unknown('a')]))).toBe(false);
    expect(repeatsHealth(a, report(31_000, [unknown('a'), unknown('c')]))).toBe(false);
    expect(repeatsHealth(a, report(31_000, [unknown('a'), { ...unknown('b'), lastError: 'no address yet' }]))).toBe(
      false,
    );
    const healthy = {
      ...unknown('b'),
      state: 'healthy' as const,
      lastError: undefined,
      checkedAt: 30_000,
      latencyMs: 12,
      status: 400,
    };
    const b = report(31_000, [unknown('a'), healthy]);
    expect(repeatsHealth(a, b)).toBe(false);
    expect(repeatsHealth(b, report(61_000, [unknown('a'), { ...healthy, checkedAt: 60_000 }]))).toBe(false);
    expect(repeatsHealth(b, report(61_000, [unknown('a'), { ...healthy, exitWarning: 'changed from 1 to 2' }]))).toBe(
      false,
    );
  });
});
