/** The stats sampler over the in-memory hosts, on a clock the test drives. */
import { describe, expect, it } from 'vitest';
import { FleetStatsSampler } from '../../../electron/services/app/fleet-stats.js';
import type { ProxyRecord } from '../../../electron/services/provider/kvm/context.js';
import type { FleetStats } from '../../../shared/stats.js';
import { ManualClock } from '../../support/manual-clock.js';
import { fixture } from '../provider/provider-fixture.js';

async function setup() {
  const fx = fixture();
  await fx.provider.launch({ name: 'web', host: 'edge-a' });
  await fx.provider.launch({ name: 'api', host: 'edge-b' });
  const proxies: ProxyRecord[] = (await fx.provider.list()).proxies;
  const clock = new ManualClock();
  const emitted: FleetStats[] = [];
  const connected = new Set(['edge-a', 'edge-b']);
  const sampler = new FleetStatsSampler({
    hosts: () => [...connected],
    apiFor: async (h) => fx.hosts.get(h)!,
    proxies: () => proxies,
    emit: (s) => emitted.push(s),
    clock,
  });
  const dom = (name: string) => proxies.find((p) => p.name === name)!.id;
  return { fx, proxies, clock, emitted, sampler, dom, connected };
}

const ratesOf = (s: FleetStats, name: string) => s.proxies.find((p) => p.name === name)?.rates;

describe('FleetStatsSampler', () => {
  it('one stats call per host a round; rates from the second reading on', async () => {
    const { fx, sampler, dom, clock } = await setup();
    const first = await sampler.sample();
    expect(first.proxies.map((p) => [p.name, p.rates]).sort()).toEqual([
      ['api', null],
      ['web', null],
    ]);
    fx.a.addUsage(dom('web'), { rxBytes: 50_000, txBytes: 100_000, rxPackets: 50, txPackets: 100, cpuTimeNs: 1e9 });
    await clock.advance(5000);
    const second = await sampler.sample();
    expect(ratesOf(second, 'web')).toEqual({ inBps: 10_000, outBps: 20_000, inPps: 10, outPps: 20, cpuPercent: 20 });
    expect(ratesOf(second, 'api')).toEqual({ inBps: 0, outBps: 0, inPps: 0, outPps: 0, cpuPercent: 0 });
    expect(fx.a.count('domainCounters')).toBe(2);
    expect(fx.b.count('domainCounters')).toBe(2);
  });

  it('totals are the counters of the latest reading (since the domain started), absent when the host did not answer', async () => {
    const { fx, sampler, dom, clock } = await setup();
    fx.a.addUsage(dom('web'), { rxBytes: 7000, txBytes: 9000, rxPackets: 7, txPackets: 9, cpuTimeNs: 2.5e9 });
    const first = await sampler.sample();
    const web = first.proxies.find((p) => p.name === 'web')!;
    expect(web.totals).toMatchObject({ inBytes: expect.any(Number), outBytes: expect.any(Number) });
    const base = web.totals!;
    fx.a.addUsage(dom('web'), { rxBytes: 1000, txBytes: 2000, rxPackets: 1, txPackets: 2, cpuTimeNs: 0.5e9 });
    await clock.advance(5000);
    const second = (await sampler.sample()).proxies.find((p) => p.name === 'web')!.totals!;
    expect(second).toEqual({
      inBytes: base.inBytes + 1000,
      outBytes: base.outBytes + 2000,
      inPackets: base.inPackets + 1,
      outPackets: base.outPackets + 2,
      cpuSeconds: base.cpuSeconds + 0.5,
    });
    fx.a.down = true;
    await clock.advance(5000);
    expect((await sampler.sample()).proxies.find((p) => p.name === 'web')!.totals).toBeUndefined();
  });

  it('a restarted proxy has no rate for the interval of its restart, then rates of its new run', async () => {
    const { fx, sampler, dom, clock } = await setup();
    await sampler.sample();
    fx.a.addUsage(dom('web'), { rxBytes: 1_000_000 });
    await fx.a.destroyDomain(dom('web'));
    await fx.a.startDomain(dom('web'));
    fx.a.addUsage(dom('web'), { rxBytes: 2_000_000 }); // higher than before, yet a new run: no leap
    await clock.advance(5000);
    expect(ratesOf(await sampler.sample(), 'web')).toBeNull();
    fx.a.addUsage(dom('web'), { rxBytes: 5000 });
    await clock.advance(5000);
    expect(ratesOf(await sampler.sample(), 'web')?.inBps).toBe(1000);
  });

  it('a stopped proxy has no rate; a host that fails makes its proxies unknown, and its next answer gives the rate over the gap', async () => {
    const { fx, sampler, dom, clock } = await setup();
    await sampler.sample();
    await fx.b.destroyDomain(dom('api'));
    fx.a.down = true;
    await clock.advance(5000);
    const s = await sampler.sample();
    expect(ratesOf(s, 'api')).toBeNull();
    expect(ratesOf(s, 'web')).toBeNull();
    expect(s.failedHosts).toEqual([{ host: 'edge-a', error: expect.stringMatching(/down/) }]);
    fx.a.down = false;
    fx.a.addUsage(dom('web'), { txBytes: 10_000 });
    await clock.advance(5000);
    expect(ratesOf(await sampler.sample(), 'web')?.outBps).toBe(1000); // 10 kB over the 10 s since the last answer
  });

  it("a stopped proxy's row is the same object sample after sample (nothing to copy), and a new one once it has figures or a new name", async () => {
    const { fx, sampler, proxies, dom, clock } = await setup();
    const api = dom('api');
    await fx.b.destroyDomain(api);
    const row = async () => (await sampler.sample()).proxies.find((p) => p.domain === api)!;
    const first = await row();
    await clock.advance(5000);
    expect(await row()).toBe(first);
    // A renamed record (a new object for the same domain) with the same figures: a new row with the new name.
    const i = proxies.findIndex((p) => p.name === 'api');
    proxies[i] = { ...proxies[i]!, name: 'api-renamed' };
    await clock.advance(5000);
    const renamed = await row();
    expect(renamed).not.toBe(first);
    expect(renamed).toMatchObject({ name: 'api-renamed', rates: null });
    await fx.b.startDomain(api);
    await clock.advance(5000);
    const running = await row();
    expect(running).not.toBe(renamed);
    expect(running.totals).toBeDefined();
  });

  it('a proxy no longer known is dropped with its history; a domain that is not ours is never reported', async () => {
    const { fx, sampler, proxies, clock } = await setup();
    await sampler.sample();
    proxies.splice(
      proxies.findIndex((p) => p.name === 'api'),
      1,
    );
    await clock.advance(5000);
    const s = sampler.snapshot({ history: true });
    expect(s.proxies.map((p) => p.name).sort()).toEqual(['api', 'web']);
    expect((await sampler.sample()).proxies.map((p) => p.name)).toEqual(['web']);
    expect(fx.b.count('domainCounters')).toBe(2);
  });

  it('samples every 60 s unwatched, every 5 s while watched (a new watcher does not wait out the minute), 60 s again after', async () => {
    const { fx, sampler, clock, emitted } = await setup();
    sampler.start();
    expect(clock.pending()).toEqual([60_000]);
    await clock.advance(60_000);
    expect(emitted).toHaveLength(1);
    expect(emitted[0]!.intervalMs).toBe(60_000);
    await clock.advance(20_000);
    const release = sampler.watch();
    await clock.advance(0);
    expect(emitted).toHaveLength(2); // at once: the last sample is older than 5 s
    await clock.advance(20_000);
    expect(emitted).toHaveLength(6);
    expect(emitted.at(-1)!.intervalMs).toBe(5000);
    release();
    release(); // twice is once
    await clock.advance(5000);
    expect(clock.pending()).toEqual([60_000]);
    expect(sampler.watching).toBe(false);
    expect(fx.a.count('domainCounters')).toBe(emitted.length);
  });

  it('a lease (proxies:stats with watch) keeps the fast cadence for its time only', async () => {
    const { sampler, clock, emitted } = await setup();
    sampler.start();
    sampler.renew(30_000);
    await clock.advance(30_000);
    const fast = emitted.length;
    expect(fast).toBeGreaterThanOrEqual(6);
    await clock.advance(120_000);
    expect(emitted.length - fast).toBeLessThanOrEqual(3);
    expect(sampler.snapshot().intervalMs).toBe(60_000);
  });

  it('a host that never answers is asked once, counts as failed after the timeout, and is not asked again while its call hangs', async () => {
    const { fx, clock, dom, proxies } = await setup();
    let calls = 0;
    const hang = new Promise<never>(() => undefined);
    const emitted: FleetStats[] = [];
    const sampler = new FleetStatsSampler({
      hosts: () => ['edge-a', 'edge-b'],
      apiFor: async (h) => {
        if (h === 'edge-b') {
          calls++;
          return hang;
        }
        return fx.hosts.get(h)!;
      },
      proxies: () => proxies,
      emit: (s) => emitted.push(s),
      clock,
      callTimeoutMs: 2000,
    });
    sampler.start();
    const release = sampler.watch();
    await clock.advance(60_000);
    expect(calls).toBe(1);
    expect(emitted.length).toBeGreaterThanOrEqual(8);
    for (const s of emitted) expect(s.failedHosts.map((f) => f.host)).toEqual(['edge-b']);
    expect(emitted.at(-1)!.failedHosts[0]!.error).toMatch(/not answered/);
    expect(emitted[0]!.failedHosts[0]!.error).toMatch(/no answer within 2 s/);
    expect(ratesOf(emitted.at(-1)!, 'web')).not.toBeNull(); // the other host is unaffected
    expect(dom('web')).toBeTruthy();
    release();
    sampler.close();
    expect(clock.pending()).toEqual([]);
  });

  it('history: the last hour of points, each the rates of its interval', async () => {
    const { fx, sampler, dom, clock } = await setup();
    await sampler.sample();
    for (let i = 1; i <= 3; i++) {
      fx.a.addUsage(dom('web'), { rxBytes: 5000 * i });
      await clock.advance(5000);
      await sampler.sample();
    }
    const web = sampler.snapshot({ history: true }).proxies.find((p) => p.name === 'web')!;
    expect(web.history!.map((p) => p.inBps)).toEqual([1000, 2000, 3000]);
    expect(sampler.snapshot().proxies[0]!.history).toBeUndefined();
    // historyPoints: the newest N only (the table's sparklines), oldest first.
    const last2 = sampler.snapshot({ history: true, historyPoints: 2 }).proxies.find((p) => p.name === 'web')!;
    expect(last2.history!.map((p) => p.inBps)).toEqual([2000, 3000]);
    // sparkPoints: the newest N points' in + out alone (the table's sparklines), oldest first; no history with it.
    const spark = sampler.snapshot({ sparkPoints: 2 }).proxies.find((p) => p.name === 'web')!;
    expect(spark.spark).toEqual(last2.history!.map((p) => p.inBps + p.outBps));
    expect(spark.history).toBeUndefined();
    expect(sampler.snapshot({ sparkPoints: 10 }).proxies.find((p) => p.name === 'web')!.spark).toHaveLength(3);
    // historyOf: that proxy's history alone (the inspector's watched proxy), the others' rates without it.
    const one = sampler.snapshot({ historyOf: { host: web.host, domain: web.domain } }).proxies;
    expect(one.find((p) => p.name === 'web')!.history!.map((p) => p.inBps)).toEqual([1000, 2000, 3000]);
    expect(one.filter((p) => p.name !== 'web').length).toBeGreaterThan(0);
    for (const p of one.filter((p) => p.name !== 'web')) expect(p.history).toBeUndefined();
  });
});
