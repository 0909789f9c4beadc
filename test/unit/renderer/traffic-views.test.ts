/**
 * The Traffic tab's history (renderer/traffic-history.ts: seeded from `historyOf`, extended by
 * events, an hour at most) and the fleet summary's figures (renderer/fleet-summary.ts).
 */
import { describe, expect, it } from 'vitest';
import { fleetTotals } from '../../../renderer/fleet-summary.js';
import {
  HISTORY_SPAN_MS,
  chartColumns,
  emptyHistory,
  seeded,
  withProbe,
  withSample,
} from '../../../renderer/traffic-history.js';
import type { FleetHealth, ProxyHealth } from '../../../shared/health.js';
import type { FleetStats } from '../../../shared/stats.js';

const ref = { host: 'edge-a', domain: 'ep-web' };
const rates = (inBps: number) => ({ inBps, outBps: 2 * inBps, inPps: 1, outPps: 1, cpuPercent: 5 });
const stats = (at: number, inBps: number | null, extra: Partial<FleetStats['proxies'][number]> = {}): FleetStats => ({
  at,
  intervalMs: 5000,
  failedHosts: [],
  proxies: [
    { host: 'edge-a', domain: 'ep-web', name: 'web', rates: inBps === null ? null : rates(inBps), ...extra },
    { host: 'edge-a', domain: 'ep-other', name: 'other', rates: rates(999) },
  ],
});
const health = (checkedAt: number, state: ProxyHealth['state'], latencyMs?: number): FleetHealth => ({
  at: checkedAt,
  proxies: [
    {
      host: 'edge-a',
      domain: 'ep-web',
      name: 'web',
      state,
      since: 0,
      checkedAt,
      ...(latencyMs !== undefined ? { latencyMs } : {}),
    },
  ],
});

describe("the Traffic tab's history", () => {
  it("is seeded from historyOf, then extended by this proxy's samples and probes only, once each", () => {
    let h = seeded(
      emptyHistory(),
      stats(10_000, 3, {
        history: [
          { at: 5000, ...rates(1) },
          { at: 10_000, ...rates(3) },
        ],
        latency: [{ at: 9000, latencyMs: 20 }],
      }),
      ref,
    );
    expect(h.rates.map((p) => p.inBps)).toEqual([1, 3]);
    h = withSample(h, stats(15_000, 4), ref);
    h = withSample(h, stats(15_000, 4), ref); // the same sample twice (an answer and its event)
    h = withSample(h, stats(20_000, null), ref); // no figures: no point
    expect(h.rates.map((p) => [p.at, p.inBps])).toEqual([
      [5000, 1],
      [10_000, 3],
      [15_000, 4],
    ]);
    h = withProbe(h, health(39_000, 'failing', 10_000), ref);
    h = withProbe(h, health(39_000, 'failing', 10_000), ref);
    h = withProbe(h, health(69_000, 'slow', 2500), ref);
    expect(h.latency).toEqual([
      { at: 9000, latencyMs: 20 },
      { at: 39_000, latencyMs: null },
      { at: 69_000, latencyMs: 2500 },
    ]);
    // A new seed replaces what it covers and keeps the events after it.
    h = seeded(
      h,
      stats(15_000, 4, {
        history: [
          { at: 10_000, ...rates(30) },
          { at: 15_000, ...rates(40) },
        ],
        latency: [{ at: 39_000, latencyMs: 25 }],
      }),
      ref,
    );
    expect(h.rates.map((p) => p.inBps)).toEqual([30, 40]);
    expect(h.latency).toEqual([
      { at: 39_000, latencyMs: 25 },
      { at: 69_000, latencyMs: 2500 },
    ]);
    // An empty seed is the backend's word: nothing (its monitor started again).
    expect(seeded(h, stats(70_000, 4, { history: [], latency: [] }), ref)).toEqual(emptyHistory());
  });

  it('keeps the hour before its newest point and no more', () => {
    let h = emptyHistory();
    for (let at = 5000; at <= 2 * HISTORY_SPAN_MS; at += 5000) h = withSample(h, stats(at, 1), ref);
    expect(h.rates).toHaveLength(HISTORY_SPAN_MS / 5000 + 1);
    expect(h.rates[0]!.at).toBe(HISTORY_SPAN_MS);
  });

  it('gives uPlot columns: seconds, then a column per series with null for gaps', () => {
    expect(
      chartColumns(
        [
          { at: 5000, v: 1 },
          { at: 10_000, v: null },
        ],
        [(p) => p.v],
      ),
    ).toEqual([
      [5, 10],
      [1, null],
    ]);
  });
});

describe('the fleet summary', () => {
  it('counts each state (no probe yet is unknown) and sums the traffic of the proxies with figures', () => {
    const probe = (state: ProxyHealth['state']): ProxyHealth => ({
      host: 'a',
      domain: 'd',
      name: 'n',
      state,
      since: 0,
    });
    const totals = fleetTotals(
      ['a/1', 'a/2', 'a/3', 'b/4'],
      { 'a/1': probe('healthy'), 'a/2': probe('failing'), 'a/3': probe('healthy') },
      { 'a/1': rates(100), 'a/2': null, 'b/4': rates(1), 'gone/9': rates(5000) },
    );
    expect(totals).toEqual({
      counts: { healthy: 2, slow: 0, failing: 1, unknown: 1 },
      inBps: 101,
      outBps: 202,
      measured: 2,
    });
  });
});
