import { statSync } from 'node:fs';

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileCredentialsStore } from '../../../electron/services/credentials/credentials-store.js';
import { formatProxyUrl } from '../../../shared/proxy-url.js';
import { ProxyNotFoundError } from '../../../electron/services/provider/kvm/errors.js';
import { ORPHAN_GRACE_MS } from '../../../electron/services/provider/kvm/orphan-grace.js';
import { baseVolumeName, instanceId, instanceVolumes } from '../../../electron/services/provider/kvm/names.js';
import { fixture } from './provider-fixture.js';
import { tempDir } from '../../support/temp-dir.js';

describe('list, get, inspect', () => {
  it('lists the fleet from every host; a down host is reported, not fatal; foreign domains are not proxies', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'a1', host: 'edge-a' });
    await f.provider.launch({ name: 'b1', host: 'edge-b' });
    await f.a.defineDomain('<domain type="kvm"><name>someone-elses</name></domain>');
    f.b.down = true;
    const listing = await f.provider.list();
    expect(listing.proxies.map((p) => [p.name, p.host, p.state])).toEqual([['a1', 'edge-a', 'running']]);
    expect(listing.proxies[0]!.addresses[0]).toMatchObject({ source: 'lease', family: 'ipv4' });
    expect(listing.hosts).toEqual([
      { host: 'edge-a', ok: true, proxies: 1, unreadable: [] },
      { host: 'edge-b', ok: false, proxies: 0, unreadable: [], error: expect.stringMatching(/ECONNREFUSED/) },
    ]);
    expect(await f.provider.get('a1')).toMatchObject({ name: 'a1', id: instanceId('a1') });
    expect(await f.provider.get('zzz')).toBeUndefined();
  });

  it('a network that is not active: its proxies are still listed, without its stale leases, saying why addresses are unknown', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'n1', host: 'edge-a' });
    expect((await f.provider.list()).proxies[0]).not.toHaveProperty('addressNote');
    f.a.inactiveNetworks.add('default');
    const [proxy] = (await f.provider.list()).proxies;
    expect(proxy).toMatchObject({
      name: 'n1',
      state: 'running',
      addresses: [],
      addressNote: 'addresses unknown: network default is not active (virsh net-start default)',
    });
    f.a.inactiveNetworks.clear();
    f.a.networks.clear();
    const [gone] = (await f.provider.list()).proxies;
    expect(gone).toMatchObject({
      name: 'n1',
      addresses: [],
      addressNote: expect.stringMatching(
        /^addresses unknown: the leases of network default could not be read \(Network not found/,
      ),
    });
  });

  it('inspect gives metadata, the raw domain XML and addresses labelled by source', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'i1', host: 'edge-a' });
    f.a.agentAddresses.set(instanceId('i1'), [
      {
        address: '192.168.122.10',
        prefix: 24,
        family: 'ipv4',
        source: 'agent',
        mac: /<mac address="([^"]+)"/.exec(f.a.domains.get(instanceId('i1'))!.xml)![1]!,
      },
    ]);
    const r = await f.provider.inspect('i1');
    expect(r.metadata).toMatchObject({ name: 'i1', host: 'edge-a', port: 3128, machineType: 'small' });
    expect(r.domainXml).toContain('urn:egress-proxies:kvm:v1');
    expect(r.addresses.map((a) => a.source).sort()).toEqual(['agent', 'lease']);
    expect(r.problems.arp).toMatch(/nlmsg/);
    expect(r.hasCredentials).toBe(true);
    expect(await f.provider.proxyUrl('i1')).toMatch(/^http:\/\/egress:generated-1@192\.168\.122\.10:3128$/);
    await expect(f.provider.inspect('nope')).rejects.toBeInstanceOf(ProxyNotFoundError);
  });
});

describe('start, stop, delete', () => {
  it('stop is graceful when the guest powers off, forced after the timeout when it does not', async () => {
    const f = fixture();
    await f.provider.launch({ name: 's1', host: 'edge-a' });
    expect(await f.provider.stop('s1', { timeoutMs: 2_000 })).toEqual({ forced: false, alreadyStopped: false });
    expect(f.a.count('destroyDomain')).toBe(0);
    expect(await f.provider.stop('s1')).toEqual({ forced: false, alreadyStopped: true });
    expect(await f.provider.start('s1')).toEqual({ alreadyRunning: false });
    expect(await f.provider.start('s1')).toEqual({ alreadyRunning: true });
    f.a.acpi = false;
    const t0 = Date.now();
    expect(await f.provider.stop('s1', { timeoutMs: 150, pollMs: 20 })).toEqual({
      forced: true,
      alreadyStopped: false,
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(f.a.calls.filter((c) => c.startsWith('shutdownDomain') || c.startsWith('destroyDomain')).slice(-2)).toEqual([
      `shutdownDomain:${instanceId('s1')}`,
      `destroyDomain:${instanceId('s1')}`,
    ]);
  });

  it('delete removes domain, root and seed volumes and credentials; the base volume stays', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'd1', host: 'edge-a' });
    const r = await f.provider.delete('d1');
    expect(r.removed).toEqual([
      `domain ${instanceId('d1')}`,
      `volume ${instanceVolumes(instanceId('d1')).root}`,
      `volume ${instanceVolumes(instanceId('d1')).seed}`,
    ]);
    expect(f.a.snapshot()).toEqual({ domains: {}, volumes: { default: [baseVolumeName(f.image.sha256, 'qcow2')] } });
    expect(await f.credentials.get('d1')).toBeUndefined();
    await expect(f.provider.delete('d1')).rejects.toBeInstanceOf(ProxyNotFoundError);
  });
});

describe('reconcile', () => {
  it('finds orphan volumes, domains whose volumes are gone and stale credentials; fix removes them', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'ok', host: 'edge-a' });
    await f.provider.launch({ name: 'broken', host: 'edge-b' });
    f.b.pools.get('default')!.volumes.delete(instanceVolumes(instanceId('broken')).seed);
    f.a.addVolume('default', instanceVolumes(instanceId('ghost')).root);
    f.a.addVolume('default', 'unrelated.qcow2');
    await f.credentials.set('gone', { username: 'u', password: 'p' });
    const report = await f.provider.reconcile();
    expect(report.findings.map((x) => [x.kind, x.host, x.object])).toEqual([
      ['broken-domain', 'edge-b', instanceId('broken')],
      ['orphan-volume', 'edge-a', instanceVolumes(instanceId('ghost')).root],
      ['stale-credentials', undefined, 'gone'],
    ]);
    expect(f.a.pools.get('default')!.volumes.has(instanceVolumes(instanceId('ghost')).root)).toBe(true);
    const fixed = await f.provider.reconcile({ fix: true });
    expect(fixed.findings.every((x) => x.fixed)).toBe(true);
    expect((await f.provider.reconcile()).findings).toEqual([]);
    expect(f.a.pools.get('default')!.volumes.has('unrelated.qcow2')).toBe(true);
    expect((await f.provider.list()).proxies.map((p) => p.name)).toEqual(['ok']);
    expect(f.b.overlaps).toEqual([]);
  });

  it('a volume with no domain changed within the grace period may be another process launching: reported, left alone, until it is old', async () => {
    const f = fixture();
    const young = instanceVolumes(instanceId('elsewhere')).root;
    f.a.addVolume('default', young);
    const vol = f.a.pools.get('default')!.volumes.get(young)!;
    vol.changedAt = Date.now() - 60_000;
    const r = await f.provider.reconcile({ fix: true });
    expect(r.findings).toEqual([
      expect.objectContaining({
        kind: 'orphan-volume',
        object: young,
        deferred: true,
        detail: expect.stringMatching(/changed 60 s ago: a launch may be under way in another process/),
      }),
    ]);
    expect(r.findings[0]!.fixed).toBeUndefined();
    expect(f.a.pools.get('default')!.volumes.has(young)).toBe(true);
    vol.changedAt = Date.now() - ORPHAN_GRACE_MS - 1_000;
    expect((await f.provider.reconcile({ fix: true })).findings).toEqual([
      expect.objectContaining({ object: young, fixed: true }),
    ]);
    expect(f.a.pools.get('default')!.volumes.has(young)).toBe(false);
  });

  it('--fix leaves a broken proxy someone else launched, naming the owner; with force it is removed', async () => {
    const f = fixture();
    const bob = f.providerAs({ user: 'bob', workstation: 'ws-2' });
    await bob.launch({ name: 'theirs', host: 'edge-b' });
    await f.provider.launch({ name: 'mine', host: 'edge-b' });
    const pool = f.b.pools.get('default')!.volumes;
    for (const n of ['theirs', 'mine']) pool.delete(instanceVolumes(instanceId(n)).seed);
    const r = await f.provider.reconcile({ fix: true });
    expect(r.findings.map((x) => [x.object, x.fixed, x.error])).toEqual([
      [instanceId('mine'), true, undefined],
      [instanceId('theirs'), false, 'not yours: launched by bob@ws-2 (reconcile --fix --force removes it)'],
    ]);
    expect(f.b.snapshot().domains).toEqual({ [instanceId('theirs')]: 'running' });
    expect(pool.has(instanceVolumes(instanceId('theirs')).root)).toBe(true);
    const forced = await f.provider.reconcile({ fix: true, force: true });
    expect(forced.findings).toEqual([
      expect.objectContaining({ kind: 'broken-domain', object: instanceId('theirs'), fixed: true }),
    ]);
    expect(f.b.snapshot().domains).toEqual({});
  });

  it('with a host down, stale credentials are not judged (they may belong there)', async () => {
    const f = fixture();
    await f.credentials.set('maybe', { username: 'u', password: 'p' });
    f.b.down = true;
    const r = await f.provider.reconcile();
    expect(r.findings).toEqual([]);
    expect(r.unreachable.map((u) => u.host)).toEqual(['edge-b']);
  });
});

describe('credentials file', () => {
  it('is written 0600, atomically, keyed by proxy name; a URL is ready to copy', async () => {
    const dir = tempDir('egress-creds-');
    const store = new FileCredentialsStore(join(dir, 'data', 'credentials.json'));
    await Promise.all([
      store.set('a', { username: 'egress', password: 'x1' }),
      store.set('b', { username: 'egress', password: 'x2' }),
    ]);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(await store.names()).toEqual(['a', 'b']);
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toEqual({ username: 'egress', password: 'x2' });
    expect(formatProxyUrl('10.0.0.5', 3128, { username: 'egress', password: 'x2' })).toBe(
      'http://egress:x2@10.0.0.5:3128',
    );
    expect(formatProxyUrl('fd00::5', 3128)).toBe('http://[fd00::5]:3128');
  });
});

describe('base volumes nothing uses (images prune --hosts)', () => {
  it('keeps a base an overlay backs onto and a young one; finds and removes an old unused one, judged again before removal', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'user1', host: 'edge-a' });
    const base = baseVolumeName(f.image.sha256, 'qcow2');
    f.a.pools.get('default')!.volumes.get(base)!.changedAt = Date.now() - 3_600_000;
    const old = baseVolumeName('ab'.repeat(32), 'qcow2');
    const young = baseVolumeName('cd'.repeat(32), 'qcow2');
    f.a.addVolume('default', old, 1024, 1024);
    f.a.pools.get('default')!.volumes.get(old)!.changedAt = Date.now() - 3_600_000;
    f.a.addVolume('default', young, 1024, 1024);
    f.a.pools.get('default')!.volumes.get(young)!.changedAt = Date.now() - 5_000;
    const report = await f.provider.unusedBases();
    expect(report.unused).toEqual([{ host: 'edge-a', pool: 'default', volume: old, bytes: 1024 }]);
    expect(report.kept).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ volume: base, why: expect.stringMatching(/^backs volume default\/ep-user1-/) }),
        expect.objectContaining({ volume: young, why: expect.stringMatching(/^written 5 s ago/) }),
      ]),
    );
    // Meanwhile something starts using the old one: it is kept after all.
    await f.a.createVolume(
      'default',
      `<volume><name>someone.qcow2</name><capacity unit="bytes">1024</capacity><backingStore><path>/fake/edge-a/default/${old}</path></backingStore></volume>`,
    );
    expect((await f.provider.removeBases(report.unused)).removed).toEqual([]);
    await f.a.deleteVolume('default', 'someone.qcow2');
    expect((await f.provider.removeBases(report.unused)).removed.map((r) => r.volume)).toEqual([old]);
    expect(f.a.pools.get('default')!.volumes.has(old)).toBe(false);
    expect(f.a.pools.get('default')!.volumes.has(base)).toBe(true);
  });
});
