/**
 * Stale DHCP leases (issue 14.2): a MAC can carry leases of earlier instances; only the
 * agent's answer or the newest lease is ever shown or offered, and only while the domain runs.
 */
import { describe, expect, it } from 'vitest';
import type { GuestAddress } from '../../../electron/services/provider/kvm/libvirt-api.js';
import { instanceId } from '../../../electron/services/provider/kvm/names.js';
import { currentAddresses } from '../../../electron/services/provider/kvm/readiness.js';
import { fixture } from './provider-fixture.js';

const MAC = '52:54:00:aa:bb:cc';
const lease = (address: string, expiresAt?: number): GuestAddress => ({
  address,
  prefix: 24,
  family: 'ipv4',
  source: 'lease',
  mac: MAC,
  ...(expiresAt !== undefined ? { expiresAt } : {}),
});
const agent = (address: string): GuestAddress => ({ address, prefix: 24, family: 'ipv4', source: 'agent', mac: MAC });
const arp = (address: string): GuestAddress => ({ address, prefix: 24, family: 'ipv4', source: 'arp', mac: MAC });

describe('currentAddresses', () => {
  it('keeps only the lease with the latest expiry, whatever the order', () => {
    const leases = [lease('10.0.0.5', 3_000), lease('10.0.0.9', 9_000), lease('10.0.0.7', 5_000)];
    expect(currentAddresses(leases, true)).toEqual([lease('10.0.0.9', 9_000)]);
    expect(currentAddresses([...leases].reverse(), true)).toEqual([lease('10.0.0.9', 9_000)]);
  });

  it('the agent wins: leases and ARP entries it contradicts are dropped, ones that agree stay as labels', () => {
    const all = [
      lease('10.0.0.5', 3_000),
      lease('10.0.0.9', 9_000),
      agent('10.0.0.5'),
      arp('10.0.0.9'),
      arp('10.0.0.5'),
    ];
    expect(currentAddresses(all, true)).toEqual([lease('10.0.0.5', 3_000), agent('10.0.0.5'), arp('10.0.0.5')]);
  });

  it('ARP only where it agrees with the newest lease, or where there are no leases at all (a bridge)', () => {
    expect(currentAddresses([lease('10.0.0.9', 9_000), arp('10.0.0.5'), arp('10.0.0.9')], true)).toEqual([
      lease('10.0.0.9', 9_000),
      arp('10.0.0.9'),
    ]);
    expect(currentAddresses([arp('10.0.0.5')], true)).toEqual([arp('10.0.0.5')]);
  });

  it('nothing for a domain that is not running', () => {
    expect(currentAddresses([lease('10.0.0.9', 9_000), agent('10.0.0.9')], false)).toEqual([]);
  });
});

describe('Copy URL and the listing with stale leases', () => {
  it('a relaunched proxy whose MAC holds older leases: the newest is listed and offered; a stopped one offers nothing', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'relaunched', host: 'edge-a' });
    const id = instanceId('relaunched');
    const mac = /<mac address="([^"]+)"/.exec(f.a.domains.get(id)!.xml)![1]!;
    const now = Date.now();
    // Leases of the same MAC: the fake's own (no expiry) replaced by three with expiries; the newest is not first.
    f.a.leases.set('default', [
      { address: '192.168.122.50', prefix: 24, family: 'ipv4', source: 'lease', mac, expiresAt: now + 1_000 },
      { address: '192.168.122.51', prefix: 24, family: 'ipv4', source: 'lease', mac, expiresAt: now + 3_600_000 },
      { address: '192.168.122.52', prefix: 24, family: 'ipv4', source: 'lease', mac, expiresAt: now + 60_000 },
    ]);
    expect((await f.provider.list()).proxies[0]!.addresses.map((a) => a.address)).toEqual(['192.168.122.51']);
    expect((await f.provider.inspect('relaunched')).addresses.map((a) => a.address)).toEqual(['192.168.122.51']);
    expect(await f.provider.proxyUrl('relaunched')).toBe('http://egress:generated-1@192.168.122.51:3128');

    await f.provider.stop('relaunched', { timeoutMs: 2_000 });
    expect((await f.provider.list()).proxies[0]!.addresses).toEqual([]);
    expect(await f.provider.proxyUrl('relaunched')).toBeUndefined();
  });

  it('a launch under a name used before gets a new MAC: the earlier instance leases never match', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'again', host: 'edge-a' });
    const macOf = () => /<mac address="([^"]+)"/.exec(f.a.domains.get(instanceId('again'))!.xml)![1]!;
    const first = macOf();
    await f.provider.delete('again');
    await new Promise((r) => setTimeout(r, 5));
    await f.provider.launch({ name: 'again', host: 'edge-a' });
    expect(macOf()).not.toBe(first);
  });
});
