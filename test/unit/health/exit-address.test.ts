/** The exit-address rules (pure), and the health monitor setting and clearing exitWarning from echo answers. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FleetHealthMonitor } from '../../../electron/services/app/fleet-health.js';
import { exitWarning, exitWarnings } from '../../../electron/services/health/exit-address.js';
import type { ProxyRecord } from '../../../electron/services/provider/kvm/context.js';
import { ManualClock } from '../../support/manual-clock.js';
import { proxyRecord } from '../renderer/fake-bridge.js';

describe('exitWarning', () => {
  it('nothing without an answer, nor when the exit is the one before and one the siblings show', () => {
    expect(exitWarning('edge-a', {}, ['198.51.100.1'])).toBeUndefined();
    expect(exitWarning('edge-a', { current: '198.51.100.1' }, [])).toBeUndefined();
    expect(
      exitWarning('edge-a', { current: '198.51.100.1', previous: '198.51.100.1' }, ['198.51.100.1', undefined]),
    ).toBeUndefined();
  });

  it("a change from the last seen, a difference from the host's others, or both", () => {
    expect(exitWarning('edge-a', { current: '198.51.100.2', previous: '198.51.100.1' }, [])).toBe(
      'changed from 198.51.100.1 to 198.51.100.2',
    );
    expect(exitWarning('edge-a', { current: '203.0.113.9' }, ['198.51.100.1', '198.51.100.1', undefined])).toBe(
      "differs from what host edge-a's other proxies show (198.51.100.1)",
    );
    expect(exitWarning('edge-a', { current: '203.0.113.9', previous: '198.51.100.1' }, ['198.51.100.1'])).toBe(
      "changed from 198.51.100.1 to 203.0.113.9; differs from what host edge-a's other proxies show (198.51.100.1)",
    );
    // Among siblings that disagree, one that matches any of them is not flagged.
    expect(exitWarning('edge-a', { current: '198.51.100.1' }, ['198.51.100.1', '203.0.113.9'])).toBeUndefined();
  });

  it('compares each proxy with its own host only', () => {
    const w = exitWarnings([
      { key: 'a/1', host: 'edge-a', seen: { current: '198.51.100.1' } },
      { key: 'a/2', host: 'edge-a', seen: { current: '198.51.100.1' } },
      { key: 'a/3', host: 'edge-a', seen: { current: '203.0.113.9' } },
      { key: 'b/1', host: 'edge-b', seen: { current: '203.0.113.50' } },
    ]);
    expect([...w.entries()].filter(([, v]) => v).map(([k]) => k)).toEqual(['a/3']);
  });

  it("says for every proxy what comparing it with each of its host's others says, in one pass", () => {
    const address = fc.constantFrom(undefined, '198.51.100.1', '198.51.100.2', '203.0.113.9');
    const entry = fc.record({ host: fc.constantFrom('edge-a', 'edge-b'), current: address, previous: address });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), (entries) => {
        const list = entries.map((e, i) => ({
          key: `k${i}`,
          host: e.host,
          seen: { ...(e.current ? { current: e.current } : {}), ...(e.previous ? { previous: e.previous } : {}) },
        }));
        const fast = exitWarnings(list);
        for (const p of list) {
          const others = list.filter((o) => o !== p && o.host === p.host).map((o) => o.seen.current);
          expect(fast.get(p.key)).toBe(exitWarning(p.host, p.seen, others));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('stays linear: 5,000 proxies on one host in well under a second', () => {
    const list = Array.from({ length: 5000 }, (_, i) => ({
      key: `k${i}`,
      host: 'edge-a',
      seen: { current: i % 100 === 0 ? '203.0.113.9' : '198.51.100.1' },
    }));
    const started = performance.now();
    const w = exitWarnings(list);
    expect(performance.now() - started).toBeLessThan(1000);
    expect([...w.values()].filter(Boolean)).toHaveLength(0); // 50 share 203.0.113.9, the rest 198.51.100.1: each matches a sibling
  });
});

describe('FleetHealthMonitor exit warnings', () => {
  const record = (name: string, n: number) =>
    ({
      ...proxyRecord({ name, host: 'edge-a', state: 'running' }),
      addresses: [{ address: `192.0.2.${n}`, prefix: 24, family: 'ipv4', source: 'lease' }],
    }) as ProxyRecord;

  it('set on the round an exit changes or stands apart, cleared when it no longer does', async () => {
    const exits = new Map([
      ['192.0.2.1', '198.51.100.1'],
      ['192.0.2.2', '198.51.100.1'],
    ]);
    const monitor = new FleetHealthMonitor({
      proxies: () => [record('web', 1), record('api', 2)],
      connected: () => new Set(['edge-a']),
      credentials: async () => undefined,
      settings: async () => ({ echoUrl: 'http://198.51.100.200/' }),
      probe: async (t) => ({ ok: true, status: 200, latencyMs: 5, exitAddress: exits.get(t.address)! }),
      clock: new ManualClock(),
    });
    const of = (name: string) => monitor.snapshot().proxies.find((p) => p.name === name)!;
    await monitor.check();
    expect(of('web').exitAddress).toBe('198.51.100.1');
    expect(of('web').exitWarning).toBeUndefined();
    exits.set('192.0.2.2', '203.0.113.9');
    await monitor.check();
    expect(of('api').exitWarning).toBe(
      "changed from 198.51.100.1 to 203.0.113.9; differs from what host edge-a's other proxies show (198.51.100.1)",
    );
    expect(of('web').exitWarning).toBe("differs from what host edge-a's other proxies show (203.0.113.9)");
    await monitor.check(); // the change is a round old; still apart from its sibling
    expect(of('api').exitWarning).toBe("differs from what host edge-a's other proxies show (198.51.100.1)");
    exits.set('192.0.2.2', '198.51.100.1');
    await monitor.check();
    await monitor.check();
    expect(of('api').exitWarning).toBeUndefined();
    expect(of('web').exitWarning).toBeUndefined();
  });
});
