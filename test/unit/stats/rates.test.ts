/** Rates from counter readings (restarts and resets included) and the bounded history. */
import { describe, expect, it } from 'vitest';
import {
  COARSE_BUCKET_MS,
  COARSE_POINTS,
  FINE_POINTS,
  FINE_SPAN_MS,
  RateHistory,
} from '../../../electron/services/stats/rate-history.js';
import { type Reading, ratesBetween } from '../../../electron/services/stats/rates.js';
import { countersFromStats } from '../../../electron/services/provider/kvm/domain-counters.js';

function reading(
  at: number,
  id: number,
  c: { cpu?: number; rx?: number; tx?: number; rxp?: number; txp?: number },
): Reading {
  return {
    at,
    counters: {
      name: 'd',
      id,
      cpuTimeNs: c.cpu ?? 0,
      rxBytes: c.rx ?? 0,
      txBytes: c.tx ?? 0,
      rxPackets: c.rxp ?? 0,
      txPackets: c.txp ?? 0,
    },
  };
}

const flat = { inBps: 0, outBps: 0, inPps: 0, outPps: 0, cpuPercent: 0 };

describe('ratesBetween', () => {
  it('divides each counter delta by the seconds between the readings; CPU in percent of one core', () => {
    const r = ratesBetween(
      reading(10_000, 3, { cpu: 1e9, rx: 1000, tx: 500, rxp: 10, txp: 5 }),
      reading(15_000, 3, { cpu: 3.5e9, rx: 51_000, tx: 10_500, rxp: 60, txp: 25 }),
    );
    expect(r).toEqual({ inBps: 10_000, outBps: 2_000, inPps: 10, outPps: 4, cpuPercent: 50 });
  });

  it('rounds to whole bytes and hundredths of a packet and a percent (short text for 1,000 rows a sample)', () => {
    const r = ratesBetween(
      reading(0, 3, { cpu: 0, rx: 0, tx: 0, rxp: 0, txp: 0 }),
      reading(3_001, 3, { cpu: 1e9, rx: 1_000_000, tx: 7, rxp: 100, txp: 1 }),
    );
    expect(r).toEqual({ inBps: 333_222, outBps: 2, inPps: 33.32, outPps: 0.33, cpuPercent: 33.32 });
    expect(JSON.stringify(r).length).toBeLessThan(80);
  });

  it('a guest busy on two vCPUs is 200 %, as top shows it', () => {
    expect(ratesBetween(reading(0, 1, { cpu: 0 }), reading(1000, 1, { cpu: 2e9 }))?.cpuPercent).toBe(200);
  });

  it('no rate across a restart (a new id, counters from zero) even when the new counters happen to be higher', () => {
    expect(ratesBetween(reading(0, 1, { rx: 100 }), reading(5000, 2, { rx: 1_000_000 }))).toBeUndefined();
  });

  it('no rate when a counter went back under the same id, nor when no time passed', () => {
    expect(ratesBetween(reading(0, 1, { rx: 100, tx: 100 }), reading(5000, 1, { rx: 200, tx: 50 }))).toBeUndefined();
    expect(ratesBetween(reading(5000, 1, {}), reading(5000, 1, { rx: 10 }))).toBeUndefined();
    expect(ratesBetween(reading(6000, 1, {}), reading(5000, 1, { rx: 10 }))).toBeUndefined();
  });
});

describe('countersFromStats', () => {
  it('sums every interface and reads 64-bit counters given as bigint', () => {
    const c = countersFromStats('dom', 7, {
      'cpu.time': 123_456_789_012n,
      'net.count': 2,
      'net.0.name': 'vnet0',
      'net.0.rx.bytes': 1000n,
      'net.0.rx.pkts': 10n,
      'net.0.tx.bytes': 400n,
      'net.0.tx.pkts': 4n,
      'net.1.rx.bytes': 24n,
      'net.1.rx.pkts': 1n,
      'net.1.tx.bytes': 6n,
      'net.1.tx.pkts': 1n,
    });
    expect(c).toEqual({
      name: 'dom',
      id: 7,
      cpuTimeNs: 123_456_789_012,
      rxBytes: 1024,
      rxPackets: 11,
      txBytes: 406,
      txPackets: 5,
    });
  });

  it('a record without the groups (skipped under NOWAIT) is all zero', () => {
    expect(countersFromStats('dom', 1, {})).toEqual({
      name: 'dom',
      id: 1,
      cpuTimeNs: 0,
      rxBytes: 0,
      rxPackets: 0,
      txBytes: 0,
      txPackets: 0,
    });
  });
});

describe('RateHistory', () => {
  it('keeps the last hour point by point, oldest first, and no more points than an hour at 5 s', () => {
    const h = new RateHistory();
    const start = 1_000_000_000_000;
    const n = FINE_POINTS + 100;
    for (let i = 1; i <= n; i++) h.add(start + i * 5000, { ...flat, inBps: i }, 5000);
    const now = start + n * 5000;
    const recent = h.recent(now);
    expect(recent.length).toBeLessThanOrEqual(FINE_POINTS);
    expect(recent.at(-1)).toMatchObject({ at: now, inBps: n });
    expect(recent[0]!.at).toBeGreaterThanOrEqual(now - FINE_SPAN_MS);
    expect(recent.map((p) => p.at)).toEqual([...recent.map((p) => p.at)].sort((a, b) => a - b));
  });

  it('points older than an hour are not in recent() even when few were taken (the 60 s idle cadence)', () => {
    const h = new RateHistory();
    h.add(0, { ...flat, outBps: 1 }, 60_000);
    h.add(FINE_SPAN_MS + 60_000, { ...flat, outBps: 2 }, 60_000);
    expect(h.recent(FINE_SPAN_MS + 60_000).map((p) => p.outBps)).toEqual([2]);
  });

  it('averages 5-minute buckets weighted by the time each point covers, and keeps a day of them', () => {
    const h = new RateHistory();
    // One bucket: 4 min at 100 B/s then 1 min at 600 B/s → 200 B/s on average.
    h.add(240_000, { ...flat, inBps: 100 }, 240_000);
    h.add(299_000, { ...flat, inBps: 600 }, 60_000);
    h.add(305_000, { ...flat, inBps: 7 }, 5_000);
    const daily = h.daily(305_000);
    expect(daily[0]).toMatchObject({ at: COARSE_BUCKET_MS });
    expect(daily[0]!.inBps).toBeCloseTo(200, 3);
    expect(daily[1]).toMatchObject({ at: 2 * COARSE_BUCKET_MS, inBps: 7 });

    const long = new RateHistory();
    for (let i = 0; i < COARSE_POINTS * 2; i++)
      long.add(i * COARSE_BUCKET_MS + 1, { ...flat, cpuPercent: 1 }, COARSE_BUCKET_MS);
    expect(long.daily(COARSE_POINTS * 2 * COARSE_BUCKET_MS).length).toBeLessThanOrEqual(COARSE_POINTS + 1);
  });
});
