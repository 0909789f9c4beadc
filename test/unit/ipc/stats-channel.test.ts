/**
 * `proxies:stats` and `proxy:stats` through the router, over the in-memory hosts: a window
 * that asks with `watch` gets figures at the 5 s cadence pushed as events, with rates of the
 * proxies the backend knows, and the last hour on request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FleetStatsSchema, type FleetStats } from '../../../shared/stats.js';
import type { FleetListingView } from '../../../shared/proxies.js';
import { ManualClock } from '../../support/manual-clock.js';
import { waitFor } from '../../support/wait.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

describe('proxies:stats', () => {
  it("watch brings sampling to 5 s; events carry each proxy's rates; history on request", async () => {
    const clock = new ManualClock();
    app = appFixture({ statsClock: clock });
    const { taskId } = (await app.call('proxies:launch', { name: 'web', host: 'edge-a' })) as { taskId: string };
    expect((await app.finished(taskId)).state).toBe('succeeded');
    const listing = (await app.call('proxies:list')) as FleetListingView;
    const dom = listing.proxies.find((p) => p.name === 'web')!.id;

    const before = (await app.call('proxies:stats', {})) as FleetStats;
    expect(before).toMatchObject({ at: 0, intervalMs: 60_000, proxies: [] });
    expect(app.eventsOf('proxy:stats')).toEqual([]);

    const watched = (await app.call('proxies:stats', { watch: true })) as FleetStats;
    expect(watched.intervalMs).toBe(5000);
    await clock.advance(0); // the first sample is due at once: nothing was sampled for 5 s
    expect(app.eventsOf('proxy:stats')).toHaveLength(1);
    app.fx.a.addUsage(dom, { rxBytes: 25_000, txBytes: 50_000, cpuTimeNs: 2.5e9 });
    await clock.advance(5000);
    const events = app.eventsOf('proxy:stats');
    expect(events).toHaveLength(2);
    for (const e of events) expect(FleetStatsSchema.safeParse(e).success).toBe(true);
    expect(events[1]!.proxies.find((p) => p.name === 'web')).toMatchObject({
      host: 'edge-a',
      domain: dom,
      rates: { inBps: 5000, outBps: 10_000, cpuPercent: 50 },
    });

    // A renewal that holds the latest sample gets no rows; one that holds an older sample gets them.
    const latest = events[1]!;
    expect(await app.call('proxies:stats', { watch: true, since: latest.at })).toEqual({ ...latest, proxies: [] });
    expect(((await app.call('proxies:stats', { watch: true, since: latest.at - 1 })) as FleetStats).proxies).toEqual(
      latest.proxies,
    );

    const withHistory = (await app.call('proxies:stats', { history: true })) as FleetStats;
    expect(withHistory.proxies.find((p) => p.name === 'web')!.history).toEqual([
      { at: clock.now(), inBps: 5000, outBps: 10_000, inPps: 0, outPps: 0, cpuPercent: 50 },
    ]);
    // The table's seed: each proxy's recent in + out alone, even with `since` (a seed is never a renewal).
    const seed = (await app.call('proxies:stats', { watch: true, sparkPoints: 60, since: latest.at })) as FleetStats;
    expect(seed.proxies.find((p) => p.name === 'web')).toMatchObject({ spark: [15_000] });
    expect(seed.proxies.find((p) => p.name === 'web')!.history).toBeUndefined();
  });

  it('a renewal holding the last sample sent gets no rows while the samples since only repeat it (a stopped fleet), and rows once one says something new', async () => {
    const clock = new ManualClock();
    app = appFixture({ statsClock: clock });
    const { taskId } = (await app.call('proxies:launch', { name: 'web', host: 'edge-a' })) as { taskId: string };
    expect((await app.finished(taskId)).state).toBe('succeeded');
    const dom = ((await app.call('proxies:list')) as FleetListingView).proxies.find((p) => p.name === 'web')!.id;
    await app.fx.a.destroyDomain(dom);
    await app.call('proxies:stats', { watch: true });
    await clock.advance(0);
    const sent = app.eventsOf('proxy:stats');
    expect(sent).toHaveLength(1);
    const held = sent[0]!;
    await clock.advance(5000);
    await clock.advance(5000);
    // Two more samples, neither sent (nothing new): the window's sample is older than the latest, yet says the same.
    expect(app.eventsOf('proxy:stats')).toHaveLength(1);
    const renewal = (await app.call('proxies:stats', { watch: true, since: held.at })) as FleetStats;
    expect(renewal.at).toBeGreaterThan(held.at);
    expect(renewal.proxies).toEqual([]);
    await app.fx.a.startDomain(dom);
    await clock.advance(5000);
    expect(app.eventsOf('proxy:stats')).toHaveLength(2);
    expect(
      ((await app.call('proxies:stats', { watch: true, since: held.at })) as FleetStats).proxies.map((p) => p.name),
    ).toEqual(['web']);
  });

  it('proxies:health and proxy:health: every 30 s each running proxy is probed at its address with its credentials', async () => {
    const clock = new ManualClock();
    const probed: string[] = [];
    app = appFixture({
      statsClock: clock,
      probe: async (t) => (
        probed.push(`${t.address}:${t.port} ${t.credentials?.username ?? 'none'}`),
        { ok: true, status: 400, latencyMs: 12 }
      ),
    });
    const { taskId } = (await app.call('proxies:launch', { name: 'web', host: 'edge-a' })) as { taskId: string };
    expect((await app.finished(taskId)).state).toBe('succeeded');
    expect(await app.call('proxies:health')).toEqual({ at: 0, proxies: [] });
    await clock.advance(30_000);
    // The probe's answer is a promise: under a loaded machine its event may come a moment after the clock's tick.
    const health = await waitFor('the first proxy:health event', 10_000, () => app.eventsOf('proxy:health')[0], 20);
    expect(health.proxies).toEqual([
      expect.objectContaining({ name: 'web', host: 'edge-a', state: 'healthy', latencyMs: 12, status: 400 }),
    ]);
    expect(probed).toEqual([expect.stringMatching(/^192\.168\.122\.\d+:3128 \S+$/)]);
    expect(probed[0]).not.toMatch(/none$/);
    expect(await app.call('proxies:health')).toEqual(health);
    // historyOf: the watched proxy's last hour, the probes' latency with it (the inspector's Traffic tab).
    await clock.advance(30_000);
    const dom = health.proxies[0]!.domain;
    // The second round's answer, like the first's, may come a moment after the tick.
    const one = await waitFor(
      'the second round in the latency history',
      10_000,
      async () => {
        const stats = (await app.call('proxies:stats', { historyOf: { host: 'edge-a', domain: dom } })) as FleetStats;
        return (stats.proxies.find((p) => p.domain === dom)?.latency?.length ?? 0) >= 2 ? stats : undefined;
      },
      20,
    );
    expect(FleetStatsSchema.safeParse(one).success).toBe(true);
    expect(one.proxies.find((p) => p.domain === dom)).toMatchObject({
      history: expect.any(Array),
      latency: [
        { at: clock.now() - 30_000, latencyMs: 12 },
        { at: clock.now(), latencyMs: 12 },
      ],
    });
  });

  it('refuses unknown input fields', async () => {
    app = appFixture({ statsClock: new ManualClock() });
    const envelope = (await app.invoke('proxies:stats', { every: 1 })) as { ok: boolean; error?: { name: string } };
    expect(envelope).toMatchObject({ ok: false, error: { name: 'ValidationError' } });
  });
});
