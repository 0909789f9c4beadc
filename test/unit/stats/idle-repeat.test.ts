/** electron/services/stats/idle-repeat.ts: a sample without figures that changes nothing is not sent again. */
import { describe, expect, it } from 'vitest';
import { repeatsIdle } from '../../../electron/services/stats/idle-repeat.js';
import type { FleetStats, ProxyStats } from '../../../shared/stats.js';

const stopped = (name: string): ProxyStats => ({ host: 'edge-a', domain: `ep-${name}`, name, rates: null });
const sample = (at: number, proxies: ProxyStats[], extra: Partial<FleetStats> = {}): FleetStats => ({
  at,
  intervalMs: 5000,
  failedHosts: [],
  proxies,
  ...extra,
});
const rates = { inBps: 1, outBps: 2, inPps: 1, outPps: 1, cpuPercent: 1 };

describe('repeatsIdle', () => {
  it('is true only for a second sample of the same stopped proxies, host failures and cadence', () => {
    const a = sample(1000, [stopped('a'), stopped('b')]);
    expect(repeatsIdle(undefined, a)).toBe(false);
    expect(repeatsIdle(a, sample(6000, [stopped('a'), stopped('b')]))).toBe(true);
  });

  it('is false when anything a page would draw differs', () => {
    const a = sample(1000, [stopped('a'), stopped('b')]);
    expect(repeatsIdle(a, sample(6000, [stopped('a')]))).toBe(false);
    expect(repeatsIdle(a, sample(6000, [stopped('a'), stopped('c')]))).toBe(false);
    expect(repeatsIdle(a, sample(6000, [stopped('a'), { ...stopped('b'), rates }]))).toBe(false);
    expect(repeatsIdle(sample(1000, [{ ...stopped('a'), rates }]), sample(6000, [stopped('a')]))).toBe(false);
    const totals = { inBytes: 1, outBytes: 1, inPackets: 1, outPackets: 1, cpuSeconds: 1 };
    expect(repeatsIdle(a, sample(6000, [stopped('a'), { ...stopped('b'), totals }]))).toBe(false);
    expect(repeatsIdle(a, sample(6000, [stopped('a'), stopped('b')], { intervalMs: 60_000 }))).toBe(false);
    expect(
      repeatsIdle(
        a,
        sample(6000, [stopped('a'), stopped('b')], { failedHosts: [{ host: 'edge-a', error: 'no answer' }] }),
      ),
    ).toBe(false);
    const failed = sample(1000, [stopped('a')], { failedHosts: [{ host: 'edge-a', error: 'no answer' }] });
    expect(
      repeatsIdle(failed, sample(6000, [stopped('a')], { failedHosts: [{ host: 'edge-a', error: 'another reason' }] })),
    ).toBe(false);
  });
});
