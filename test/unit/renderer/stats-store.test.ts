/** The traffic figures in the renderer: the watch lease, events, sparklines (renderer/stores/stats-store.ts, views/ProxyTraffic.tsx). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SPARK_POINTS, useStatsStore } from '../../../renderer/stores/stats-store.js';
import { SparkRing, sparkPoints } from '../../../renderer/sparkline.js';
import { type FleetStats, WATCH_LEASE_MS } from '../../../shared/stats.js';
import { proxyKey } from '../../../shared/proxy-key.js';
import { fakeBridge } from './fake-bridge.js';

const WEB = proxyKey('edge-a', 'ep-web');
const rates = (inBps: number) => ({ inBps, outBps: inBps, inPps: 1, outPps: 1, cpuPercent: 3 });
const stats = (at: number, inBps: number | null, spark?: number[]): FleetStats => ({
  at,
  intervalMs: 5000,
  failedHosts: [],
  proxies: [
    {
      host: 'edge-a',
      domain: 'ep-web',
      name: 'web',
      rates: inBps === null ? null : rates(inBps),
      ...(spark ? { spark } : {}),
    },
  ],
});

beforeEach(() => useStatsStore.setState({ rates: {}, spark: {}, at: 0 }));
afterEach(() => vi.useRealTimers());

describe('stats store', () => {
  it("asks with watch and the sparklines' points at once, renews the lease before it runs out, and stops on release", async () => {
    vi.useFakeTimers();
    const bridge = fakeBridge({ 'proxies:stats': () => stats(100, 10, [2, 4, 6]) });
    const release = useStatsStore.getState().watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(bridge.calls).toEqual([{ channel: 'proxies:stats', input: { watch: true, sparkPoints: SPARK_POINTS } }]);
    expect(useStatsStore.getState().spark[WEB]!.toArray()).toEqual([2, 4, 6]);
    expect(bridge.listeners('proxy:stats')).toBe(1);
    await vi.advanceTimersByTimeAsync(WATCH_LEASE_MS / 2);
    expect(bridge.calls.at(-1)).toEqual({ channel: 'proxies:stats', input: { watch: true, since: 100 } }); // the sample the store holds: no rows unless a newer one exists
    release();
    expect(bridge.listeners('proxy:stats')).toBe(0);
    const n = bridge.calls.length;
    await vi.advanceTimersByTimeAsync(WATCH_LEASE_MS * 2);
    expect(bridge.calls).toHaveLength(n);
  });

  it('each event adds a point (bounded); no figure shows as null and adds none; an older answer is ignored', () => {
    const { apply } = useStatsStore.getState();
    for (let i = 1; i <= SPARK_POINTS + 5; i++) apply(stats(i, i));
    const spark = useStatsStore.getState().spark[WEB]!;
    expect(spark).toHaveLength(SPARK_POINTS);
    expect(spark.toArray()).toEqual(Array.from({ length: SPARK_POINTS }, (_, i) => 2 * (i + 6)));
    const version = spark.version;
    apply(stats(1000, null));
    expect(useStatsStore.getState().rates[WEB]).toBeNull();
    expect(useStatsStore.getState().spark[WEB]).toBe(spark);
    expect(spark.version).toBe(version);
    apply(stats(999, 5));
    expect(useStatsStore.getState().at).toBe(1000);
    expect(spark.version).toBe(version);
  });

  it("keeps a sparkline only for the proxies of the latest sample, and seeds it anew from an answer's points", () => {
    const { apply } = useStatsStore.getState();
    apply(stats(1, 1));
    const ring = useStatsStore.getState().spark[WEB]!;
    apply(stats(2, 2, [14, 16]));
    expect(useStatsStore.getState().spark[WEB]).not.toBe(ring);
    expect(useStatsStore.getState().spark[WEB]!.toArray()).toEqual([14, 16]);
    apply({ at: 3, intervalMs: 5000, failedHosts: [], proxies: [] });
    expect(useStatsStore.getState().spark).toEqual({});
  });

  it('a sparkline scales to its maximum, is flat at the bottom when all zero, and needs two points', () => {
    expect(sparkPoints([0, 5, 10], 10, 12)).toBe('0.0,11.0 5.0,6.0 10.0,1.0');
    expect(sparkPoints([0, 0], 10, 12)).toBe('0.0,11.0 10.0,11.0');
    expect(sparkPoints([7])).toBe('');
  });

  it('a ring keeps its newest values in order and makes its points once per sample', () => {
    const ring = SparkRing.of([1, 2, 3, 4, 5], 3);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(new SparkRing(3).toArray()).toEqual([]);
    expect(new SparkRing(3).points()).toBe('');
    const first = ring.points();
    expect(first).toBe(sparkPoints([3, 4, 5]));
    expect(ring.points()).toBe(first); // the same string: not made again
    ring.add(100);
    expect(ring.toArray()).toEqual([4, 5, 100]);
    expect(ring.points()).toBe(sparkPoints([4, 5, 100]));
  });
});
