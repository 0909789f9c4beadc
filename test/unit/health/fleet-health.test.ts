/** The health monitor's scheduling and states, with a probe of the test's making and a clock it drives. */
import { describe, expect, it } from 'vitest';
import { FleetHealthMonitor, type Probe, REPORT_GATHER_MS } from '../../../electron/services/app/fleet-health.js';
import type { ProbeResult } from '../../../electron/services/health/proxy-probe.js';
import type { ProxyRecord } from '../../../electron/services/provider/kvm/context.js';
import type { FleetHealth } from '../../../shared/health.js';
import { ManualClock, settle } from '../../support/manual-clock.js';
import { proxyRecord } from '../renderer/fake-bridge.js';

function record(
  name: string,
  host: string,
  state: ProxyRecord['state'] = 'running',
  address = `192.0.2.${name.length}`,
): ProxyRecord {
  return {
    ...proxyRecord({ name, host, state }),
    addresses: address ? [{ address, prefix: 24, family: 'ipv4', source: 'lease' }] : [],
  } as ProxyRecord;
}

function setup(o: {
  proxies: ProxyRecord[];
  probe: Probe;
  connected?: string[];
  echoUrl?: string;
  /** Read each time the monitor reads its settings. */
  intervalSeconds?: () => number | undefined;
}) {
  const clock = new ManualClock();
  const emitted: FleetHealth[] = [];
  const monitor = new FleetHealthMonitor({
    proxies: () => o.proxies,
    connected: () => new Set(o.connected ?? ['edge-a', 'edge-b']),
    credentials: async (name) => ({ username: name, password: 'pw' }),
    settings: async () => {
      const intervalSeconds = o.intervalSeconds?.();
      return { ...(o.echoUrl ? { echoUrl: o.echoUrl } : {}), ...(intervalSeconds ? { intervalSeconds } : {}) };
    },
    emit: (h) => emitted.push(h),
    probe: o.probe,
    clock,
    perHost: 2,
  });
  const of = (name: string) => monitor.snapshot().proxies.find((p) => p.name === name);
  return { clock, emitted, monitor, of };
}

const ok = (latencyMs: number, extra: Partial<ProbeResult> = {}): ProbeResult => ({
  ok: true,
  status: 200,
  latencyMs,
  ...extra,
});

describe('FleetHealthMonitor', () => {
  it('healthy, slow, failing with the last error; since moves only when the state changes; unknown says why', async () => {
    let next: ProbeResult = ok(40);
    const calls: string[] = [];
    const { monitor, clock, of } = setup({
      proxies: [
        record('web', 'edge-a'),
        record('off', 'edge-a', 'shutoff'),
        record('far', 'edge-c'),
        record('new', 'edge-b', 'running', ''),
      ],
      connected: ['edge-a', 'edge-b'],
      probe: async (t, o) => {
        calls.push(`${t.address}:${t.port} ${t.credentials?.username}/${t.credentials?.password} ${o.url ?? '-'}`);
        return next;
      },
    });
    await monitor.check();
    const t0 = clock.now();
    expect(of('web')).toMatchObject({ state: 'healthy', since: t0, latencyMs: 40, status: 200, checkedAt: t0 });
    expect(of('off')).toMatchObject({ state: 'unknown', lastError: 'not running' });
    expect(of('far')).toMatchObject({ state: 'unknown', lastError: 'host edge-c is not connected' });
    expect(of('new')).toMatchObject({ state: 'unknown', lastError: 'no address yet' });
    expect(calls).toEqual(['192.0.2.3:3128 web/pw -']);
    await clock.advance(30_000);
    await monitor.check();
    expect(of('web')!.since).toBe(t0);
    next = ok(2500);
    await monitor.check();
    expect(of('web')).toMatchObject({ state: 'slow', since: clock.now() });
    next = { ok: false, latencyMs: 10_000, error: 'no answer within 10 s' };
    await clock.advance(30_000);
    const failedAt = clock.now();
    await monitor.check();
    await clock.advance(30_000);
    await monitor.check();
    expect(of('web')).toMatchObject({
      state: 'failing',
      since: failedAt,
      lastError: 'no answer within 10 s',
      checkedAt: clock.now(),
    });
  });

  it('paused or crashed on a connected host: failing without a probe, since it was first seen so; resumed: probed again', async () => {
    const proxies = [
      record('web', 'edge-a', 'paused'),
      record('gone', 'edge-a', 'crashed'),
      record('far', 'edge-c', 'paused'),
      record('off', 'edge-a', 'shutoff'),
    ];
    const calls: string[] = [];
    const { monitor, clock, of } = setup({
      proxies,
      connected: ['edge-a'],
      probe: async (t) => (calls.push(t.address), ok(40)),
    });
    await monitor.check();
    const t0 = clock.now();
    expect(of('web')).toMatchObject({
      state: 'failing',
      since: t0,
      checkedAt: t0,
      lastError: 'the VM is paused: it cannot answer until it is resumed',
    });
    expect(of('gone')).toMatchObject({ state: 'failing', lastError: 'the VM has crashed' });
    // A host that is not connected says nothing of its domains' states; a stopped proxy is out of service on purpose.
    expect(of('far')).toMatchObject({ state: 'unknown', lastError: 'host edge-c is not connected' });
    expect(of('off')).toMatchObject({ state: 'unknown', lastError: 'not running' });
    expect(calls).toEqual([]);
    await clock.advance(30_000);
    await monitor.check();
    expect(of('web')).toMatchObject({ state: 'failing', since: t0, checkedAt: clock.now() });
    proxies[0] = { ...proxies[0]!, state: 'running' };
    await clock.advance(30_000);
    await monitor.check();
    expect(of('web')).toMatchObject({ state: 'healthy', since: clock.now(), latencyMs: 40 });
    expect(calls).toHaveLength(1);
  });

  it('latency history: one point a probe (null without an answer), an hour at most, dropped with the proxy', async () => {
    const proxies = [record('web', 'edge-a'), record('off', 'edge-a', 'shutoff')];
    let next: ProbeResult = ok(40);
    const { monitor, clock } = setup({ proxies, probe: async () => next });
    const web = proxies[0]!;
    await monitor.check();
    next = { ok: false, latencyMs: 10_000, error: 'refused' };
    await clock.advance(30_000);
    await monitor.check();
    expect(monitor.latencyHistory(web.host, web.id)).toEqual([
      { at: clock.now() - 30_000, latencyMs: 40 },
      { at: clock.now(), latencyMs: null },
    ]);
    expect(monitor.latencyHistory('edge-a', proxies[1]!.id)).toEqual([]); // never probed: not running
    next = ok(7);
    for (let i = 0; i < 200; i++) {
      await clock.advance(30_000);
      await monitor.check();
    }
    const hour = monitor.latencyHistory(web.host, web.id);
    expect(hour).toHaveLength(120);
    expect(hour[0]!.at).toBeGreaterThanOrEqual(clock.now() - 3_600_000);
    expect(hour.every((p) => p.latencyMs === 7)).toBe(true);
    proxies.splice(0, 1);
    await monitor.check();
    expect(monitor.latencyHistory(web.host, web.id)).toEqual([]);
  });

  it('the exit address from the echo URL is kept and a change is flagged', async () => {
    let exit = '203.0.113.1';
    const { monitor, of } = setup({
      proxies: [record('web', 'edge-a')],
      echoUrl: 'http://echo.invalid/',
      probe: async (_t, o) => ok(5, o.echo ? { exitAddress: exit } : {}),
    });
    await monitor.check();
    expect(of('web')).toMatchObject({ exitAddress: '203.0.113.1' });
    expect(of('web')!.exitChanged).toBeUndefined();
    exit = '203.0.113.2';
    await monitor.check();
    expect(of('web')).toMatchObject({ exitAddress: '203.0.113.2', exitChanged: true });
  });

  it('at most perHost probes in flight per host; a probe that never ends is not started again, the other hosts go on', async () => {
    let inFlight = 0;
    let most = 0;
    const started: string[] = [];
    const proxies = [
      ...['a1', 'a2', 'a3', 'a4', 'a5'].map((n, i) => record(n, 'edge-a', 'running', `192.0.2.${11 + i}`)),
      record('b1', 'edge-b', 'running', '192.0.2.99'),
    ];
    const { monitor, clock, emitted } = setup({
      proxies,
      probe: (t) => {
        started.push(t.address);
        if (t.address === '192.0.2.99') return new Promise<never>(() => undefined); // b1 on edge-b: hangs for ever
        inFlight++;
        most = Math.max(most, inFlight);
        return new Promise((r) => setTimeout(() => (inFlight--, r(ok(1))), 5));
      },
    });
    monitor.start();
    for (let i = 0; i < 4; i++) {
      await clock.advance(30_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(most).toBe(2);
    expect(started.filter((a) => a === '192.0.2.99')).toHaveLength(1); // b1 is asked once: its probe is still running
    expect(started.filter((a) => a === '192.0.2.15')).toHaveLength(4); // a5, every round
    expect(emitted.length).toBeGreaterThanOrEqual(4);
    monitor.close();
    expect(clock.pending()).toEqual([]);
  });

  it('hosts that end together make one report; a host whose probes hang does not hold up the others beyond REPORT_GATHER_MS', async () => {
    const proxies = [record('a1', 'edge-a', 'running', '192.0.2.11'), record('b1', 'edge-b', 'running', '192.0.2.21')];
    let hang = false;
    const { monitor, clock, emitted } = setup({
      proxies,
      probe: (t) => (hang && t.address === '192.0.2.21' ? new Promise<never>(() => undefined) : Promise.resolve(ok(3))),
    });
    await monitor.check();
    expect(emitted).toHaveLength(1);
    expect(emitted[0]!.proxies.map((p) => p.state)).toEqual(['healthy', 'healthy']);
    hang = true;
    void monitor.check();
    await settle();
    expect(emitted).toHaveLength(1); // edge-a is done, edge-b is not: the report waits a moment for it
    await clock.advance(REPORT_GATHER_MS);
    expect(emitted).toHaveLength(2);
    expect(emitted[1]!.proxies.find((p) => p.name === 'a1')!.checkedAt).toBe(clock.now() - REPORT_GATHER_MS);
    monitor.close();
    expect(clock.pending()).toEqual([]);
  });

  it('a stopped proxy keeps its record round after round; a new exit warning makes a new record and leaves the one sent before as it was', async () => {
    const stopped = record('off', 'edge-a', 'shutoff', '');
    const exits: Record<string, string> = { '192.0.2.11': '203.0.113.1', '192.0.2.12': '203.0.113.1' };
    const proxies = [
      stopped,
      record('w1', 'edge-a', 'running', '192.0.2.11'),
      record('w2', 'edge-a', 'running', '192.0.2.12'),
    ];
    const { monitor, emitted } = setup({
      proxies,
      echoUrl: 'http://echo.invalid/',
      probe: async (t) => ok(5, { exitAddress: exits[t.address]! }),
    });
    await monitor.check();
    await monitor.check();
    const first = (n: number, name: string) => emitted[n]!.proxies.find((p) => p.name === name)!;
    expect(first(1, 'off')).toBe(first(0, 'off'));
    const sent = first(1, 'w2');
    expect(sent.exitWarning).toBeUndefined();
    exits['192.0.2.12'] = '203.0.113.9';
    await monitor.check();
    expect(first(2, 'w2').exitWarning).toMatch(/203\.0\.113\.9/);
    expect(sent.exitWarning).toBeUndefined();
  });

  it("rounds at the settings' pace: read at start (the first round moves to it), and a change applies from the next round", async () => {
    let pace: number | undefined = 5;
    const rounds: number[] = [];
    const { monitor, clock } = setup({
      proxies: [record('web', 'edge-a')],
      probe: async () => (rounds.push(clock.now()), ok(1)),
      intervalSeconds: () => pace,
    });
    const t0 = clock.now();
    monitor.start();
    await settle();
    expect(monitor.intervalMs()).toBe(5_000);
    await clock.advance(5_000);
    await settle();
    expect(rounds.map((t) => t - t0)).toEqual([5_000]);
    // Back to the default: the round at 10 s reads it, and the next one is 30 s after it.
    pace = undefined;
    await clock.advance(5_000);
    await settle();
    expect(monitor.intervalMs()).toBe(30_000);
    await clock.advance(29_000);
    await settle();
    expect(rounds.map((t) => t - t0)).toEqual([5_000, 10_000]);
    await clock.advance(1_000);
    await settle();
    expect(rounds.map((t) => t - t0)).toEqual([5_000, 10_000, 40_000]);
    monitor.close();
    expect(clock.pending()).toEqual([]);
  });
});
