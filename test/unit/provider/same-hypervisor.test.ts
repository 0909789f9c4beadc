/**
 * Two host entries that reach one hypervisor (issue 14.1), over the in-memory libvirt: a
 * proxy belongs to the entry its metadata names, its volumes are where its XML says, and
 * nothing is listed twice or touched through the other entry. The same on the real daemon:
 * test/libvirt/same-hypervisor.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { instanceId, instanceVolumes } from '../../../electron/services/provider/kvm/names.js';
import { FakeHost } from '../../support/fake-libvirt.js';
import { fixture } from './provider-fixture.js';

/** `one` (pool default) and `two` (pool fast) on one machine, and `far` on another. */
function twins() {
  const machine = new FakeHost({ name: 'machine', pools: [{ name: 'default' }, { name: 'fast' }] });
  const far = new FakeHost({ name: 'far' });
  const byEntry: Record<string, FakeHost> = { one: machine, two: machine, far };
  const f = fixture({
    config: {
      hosts: [
        { name: 'one', address: 'local', pool: 'default', network: 'default', domainType: 'auto' },
        { name: 'two', address: 'local', pool: 'fast', network: 'default', domainType: 'auto' },
        { name: 'far', address: 'far.example', pool: 'default', network: 'default', domainType: 'auto' },
      ],
    },
    deps: {
      apiFor: async (name) => {
        const h = byEntry[name];
        if (!h) throw new Error(`no host ${name}`);
        return h;
      },
    },
  });
  return { f, machine, far };
}

describe('entries on one hypervisor', () => {
  it('lists a proxy once, under the entry its metadata names; the other entry says which one it shares the hypervisor with', async () => {
    const { f } = twins();
    await f.provider.launch({ name: 'egdemo', host: 'one' });
    await f.provider.launch({ name: 'fast1', host: 'two' });
    const listing = await f.provider.list();
    expect(listing.proxies.map((p) => [p.name, p.host])).toEqual([
      ['egdemo', 'one'],
      ['fast1', 'two'],
    ]);
    expect(listing.hosts).toEqual([
      { host: 'one', ok: true, proxies: 1, unreadable: [] },
      { host: 'two', ok: true, proxies: 1, unreadable: [], sameAs: 'one' },
      { host: 'far', ok: true, proxies: 0, unreadable: [] },
    ]);
    expect(await f.provider.get('fast1')).toMatchObject({ host: 'two' });
    // The same spec again, on its own entry: the existing proxy (whichever entry answers first).
    expect(await f.provider.launch({ name: 'fast1', host: 'two' })).toMatchObject({
      created: false,
      proxy: { host: 'two' },
    });
    expect(await f.provider.get('egdemo')).toMatchObject({ host: 'one' });
  });

  it('reconcile --fix leaves every healthy proxy of every entry, its volumes and its credentials alone', async () => {
    const { f, machine } = twins();
    await f.provider.launch({ name: 'egdemo', host: 'one' });
    await f.provider.launch({ name: 'fast1', host: 'two' });
    await f.provider.launch({ name: 'far1', host: 'far' });
    const before = machine.snapshot();
    const report = await f.provider.reconcile({ fix: true });
    expect(report.findings).toEqual([]);
    expect(report.unreachable).toEqual([]);
    expect(machine.snapshot()).toEqual(before);
    expect((await f.credentials.names()).sort()).toEqual(['egdemo', 'far1', 'fast1']);
    expect(machine.count('destroyDomain') + machine.count('undefineDomain') + machine.count('deleteVolume')).toBe(0);
  });

  it('reconcile finds a domain broken only by the volumes its own XML names, in the pools it names', async () => {
    const { f, machine } = twins();
    await f.provider.launch({ name: 'fast1', host: 'two' });
    const id = instanceId('fast1');
    machine.pools.get('fast')!.volumes.delete(instanceVolumes(id).seed);
    const report = await f.provider.reconcile();
    expect(report.findings).toEqual([
      expect.objectContaining({
        kind: 'broken-domain',
        host: 'two',
        object: id,
        detail: expect.stringContaining(`${instanceVolumes(id).seed} (pool fast) missing`),
      }),
    ]);
  });

  it('orphan volumes of a shared pool are reported once', async () => {
    const { f, machine } = twins();
    machine.addVolume('default', instanceVolumes(instanceId('gone')).root);
    const report = await f.provider.reconcile();
    expect(report.findings.map((x) => [x.kind, x.host, x.object])).toEqual([
      ['orphan-volume', 'one', instanceVolumes(instanceId('gone')).root],
    ]);
  });

  it('delete through either entry removes the volumes where the domain XML says, not from the entry pool', async () => {
    const { f, machine } = twins();
    await f.provider.launch({ name: 'egdemo', host: 'two' });
    const id = instanceId('egdemo');
    expect(machine.snapshot().volumes.fast).toEqual(expect.arrayContaining(Object.values(instanceVolumes(id))));
    const result = await f.provider.delete('egdemo');
    expect(result.host).toBe('two');
    expect(result.removed).toEqual([
      `domain ${id}`,
      `volume ${instanceVolumes(id).root}`,
      `volume ${instanceVolumes(id).seed}`,
    ]);
    expect(machine.snapshot().volumes.fast!.filter((v) => v.startsWith(id))).toEqual([]);
  });

  it('a proxy whose metadata names an entry no longer in the config is listed under the first entry there, marked, never broken', async () => {
    const { f, machine } = twins();
    await f.provider.launch({ name: 'renamed', host: 'one' });
    const id = instanceId('renamed');
    const d = machine.domains.get(id)!;
    d.xml = d.xml.replace('<host>one</host>', '<host>old-name</host>');
    const listing = await f.provider.list();
    expect(listing.proxies).toEqual([
      expect.objectContaining({ name: 'renamed', host: 'one', unknownHost: 'old-name' }),
    ]);
    expect((await f.provider.reconcile({ fix: true })).findings).toEqual([]);
    expect(machine.domains.has(id)).toBe(true);
    expect(f.provider.reportingEntry('one', 'old-name')).toEqual({ host: 'one', unknownHost: 'old-name' });
    expect(f.provider.reportingEntry('two', 'old-name')).toBeUndefined();
    expect(f.provider.reportingEntry('two', 'one')).toBeUndefined();
    expect(f.provider.reportingEntry('one', 'one')).toEqual({ host: 'one' });
    expect(f.provider.reportingEntry('far', 'one')).toEqual({ host: 'far', unknownHost: 'one' });
  });
});
