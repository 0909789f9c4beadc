/**
 * Readiness is signalled within a second of the proxy port opening (design budget): once
 * the guest has an address, the port is probed every 200 ms, not at the 1 s pace of the
 * address rounds.
 */
import { describe, expect, it } from 'vitest';
import { PROBE_INTERVAL_MS, waitForProxy } from '../../../electron/services/provider/kvm/readiness.js';
import type { ResolvedKVMHost } from '../../../shared/config.js';
import { FakeHost } from '../../support/fake-libvirt.js';

const host: ResolvedKVMHost = {
  name: 'edge-a',
  address: 'local',
  socketPath: '/run/libvirt/libvirt-sock',
  pool: 'default',
  network: 'default',
  domainType: 'qemu',
};

describe('waitForProxy', () => {
  it('reports ready soon after the port opens, far inside the 1 s budget, with the address rounds at 1 s', async () => {
    const fake = new FakeHost({ name: 'edge-a' });
    await fake.defineDomain(
      '<domain type="qemu"><name>ep-r</name><devices><interface type="network"><mac address="52:54:00:00:00:01"/><source network="default"/></interface></devices></domain>',
    );
    await fake.startDomain('ep-r');
    const mac = /<mac address="([^"]+)"/.exec(fake.domains.get('ep-r')!.xml)![1]!;
    const started = Date.now();
    const opensAt = started + 1_300;
    const probes: number[] = [];
    const result = await waitForProxy({
      api: fake,
      host,
      domain: 'ep-r',
      mac,
      port: 3128,
      probe: async () => {
        probes.push(Date.now());
        return Date.now() >= opensAt;
      },
      deadline: started + 10_000,
      now: Date.now,
    });
    const late = Date.now() - opensAt;
    expect(result.ready).toBe(true);
    expect(late).toBeLessThan(PROBE_INTERVAL_MS + 150);
    // Probes a known address at the short pace, not once a second.
    const gaps = probes.slice(1).map((t, i) => t - probes[i]!);
    expect(Math.max(...gaps)).toBeLessThan(600);
  });
});
