/** Labels edited without a restart, ownership before stop and delete, expiry: over the in-memory hosts. */
import { describe, expect, it } from 'vitest';
import { NotYourProxyError } from '../../../electron/services/provider/kvm/errors.js';
import { instanceId } from '../../../electron/services/provider/kvm/names.js';
import { parseInstanceMetadata } from '../../../electron/services/provider/kvm/xml/metadata.js';
import { fixture } from './provider-fixture.js';

const bob = { user: 'bob', workstation: 'ws-2' };

describe('labels', () => {
  it('are set at launch, kept in the metadata, and listed', async () => {
    const f = fixture();
    const r = await f.provider.launch({ name: 'l1', host: 'edge-a', labels: { env: 'prod', team: 'web' } });
    expect(r.proxy.labels).toEqual({ env: 'prod', team: 'web' });
    expect(parseInstanceMetadata(f.a.domains.get(instanceId('l1'))!.xml)?.labels).toEqual({ env: 'prod', team: 'web' });
    expect((await f.provider.list()).proxies[0]!.labels).toEqual({ env: 'prod', team: 'web' });
  });

  it('are edited on a running proxy through setMetadata: a fresh listing reads them back, the domain was neither stopped nor started again', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'l2', host: 'edge-b', labels: { env: 'dev', team: 'web' } });
    const starts = f.b.count('startDomain');
    const r = await f.provider.editLabels('l2', { set: { env: 'prod', tier: 'edge' }, remove: ['team'] });
    expect(r).toEqual({ host: 'edge-b', labels: { env: 'prod', tier: 'edge' }, changed: true });
    expect(f.b.count('setMetadata')).toBe(1);
    expect(f.b.count('startDomain')).toBe(starts);
    expect(f.b.count('destroyDomain') + f.b.count('shutdownDomain')).toBe(0);
    const [p] = (await f.providerAs(bob).list()).proxies;
    expect(p).toMatchObject({ name: 'l2', state: 'running', labels: { env: 'prod', tier: 'edge' } });
    // Everything else in the element is what it was.
    expect(p).toMatchObject({ launchedBy: { user: 'tester', workstation: 'ws-1' }, port: 3128 });
  });

  it('an edit that changes nothing writes nothing; removing the last label removes the element; bad labels are refused before any write', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'l3', host: 'edge-a', labels: { env: 'prod' } });
    expect((await f.provider.editLabels('l3', { set: { env: 'prod' } })).changed).toBe(false);
    expect(f.a.count('setMetadata')).toBe(0);
    await f.provider.editLabels('l3', { remove: ['env'] });
    expect(f.a.domains.get(instanceId('l3'))!.xml).not.toMatch(/<(\w+:)?labels/);
    expect((await f.provider.get('l3'))!.labels).toBeUndefined();
    await expect(f.provider.editLabels('l3', { set: { 'Bad Key': 'x' } })).rejects.toThrow(/label key/);
    await expect(f.provider.editLabels('l3', { set: { env: 'a<b' } })).rejects.toThrow(/label value/);
    expect(f.a.count('setMetadata')).toBe(1);
  });

  it('a stopped proxy keeps its edited labels across a start', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'l4', host: 'edge-a' });
    await f.provider.stop('l4', { pollMs: 5 });
    await f.provider.editLabels('l4', { set: { env: 'qa' } });
    await f.provider.start('l4');
    expect((await f.provider.get('l4'))!).toMatchObject({ state: 'running', labels: { env: 'qa' } });
  });
});

describe('ownership', () => {
  it('records who launched it; someone else is refused stop and delete without force, naming the owner; the owner is not', async () => {
    const f = fixture();
    const r = await f.provider.launch({ name: 'o1', host: 'edge-a' });
    expect(r.proxy.launchedBy).toEqual({ user: 'tester', workstation: 'ws-1' });
    const theirs = f.providerAs(bob);
    expect((await theirs.list()).you).toEqual(bob);
    await expect(theirs.stop('o1')).rejects.toThrow(NotYourProxyError);
    await expect(theirs.delete('o1')).rejects.toThrow(/launched by tester@ws-1, not by you/);
    expect(f.a.snapshot().domains[instanceId('o1')]).toBe('running');
    expect(await theirs.stop('o1', { force: true, pollMs: 5 })).toMatchObject({ alreadyStopped: false });
    await f.provider.delete('o1');
    expect(f.a.snapshot().domains).toEqual({});
  });

  it("a proxy launched before ownership was recorded is anyone's", async () => {
    const f = fixture();
    await f.provider.launch({ name: 'o2', host: 'edge-a' });
    const d = f.a.domains.get(instanceId('o2'))!;
    d.xml = d.xml.replace(/<launchedBy [^>]*\/>/, '');
    expect((await f.provider.get('o2'))!.launchedBy).toBeUndefined();
    await f.providerAs(bob).delete('o2');
    expect(f.a.snapshot().domains).toEqual({});
  });
});

describe('expiry', () => {
  it('deletes exactly the proxies whose expiry passed, whoever launched them; one without an expiry is never touched', async () => {
    let now = Date.parse('2026-12-03T08:00:00.000Z');
    const f = fixture({ deps: { now: () => now } });
    await f.provider.launch({ name: 'e1', host: 'edge-a', expiresAt: '2026-12-03T09:00:00.000Z' });
    await f.provider.launch({ name: 'e2', host: 'edge-b', expiresAt: '2026-12-03T12:00:00.000Z' });
    await f.provider.launch({ name: 'e3', host: 'edge-b' });
    expect((await f.provider.get('e1'))!.expiresAt).toBe('2026-12-03T09:00:00.000Z');
    expect(await f.provider.expire()).toEqual({ deleted: [], failed: [], unreachable: [] });
    now = Date.parse('2026-12-03T09:00:00.000Z');
    // Another provider (a cron run elsewhere, a restarted app) reads the expiry back from libvirt alone.
    const theirs = f.providerAs(bob);
    expect((await theirs.list()).proxies.map((p) => p.expiresAt ?? null)).toEqual([
      '2026-12-03T09:00:00.000Z',
      '2026-12-03T12:00:00.000Z',
      null,
    ]);
    const report = await theirs.expire();
    expect(report).toEqual({
      deleted: [{ name: 'e1', host: 'edge-a', expiresAt: '2026-12-03T09:00:00.000Z' }],
      failed: [],
      unreachable: [],
    });
    expect((await f.provider.list()).proxies.map((p) => p.name)).toEqual(['e2', 'e3']);
    now = Date.parse('2027-06-01T00:00:00.000Z');
    expect((await f.provider.expire()).deleted.map((d) => d.name)).toEqual(['e2']);
    expect((await f.provider.list()).proxies.map((p) => p.name)).toEqual(['e3']);
  });

  it('a host that is down is reported, and a delete that fails is reported with its error', async () => {
    let now = Date.parse('2026-12-03T08:00:00.000Z');
    const f = fixture({ deps: { now: () => now } });
    await f.provider.launch({ name: 'e4', host: 'edge-a', expiresAt: '2026-12-03T08:30:00.000Z' });
    await f.provider.launch({ name: 'e5', host: 'edge-b', expiresAt: '2026-12-03T08:30:00.000Z' });
    now = Date.parse('2026-12-03T09:00:00.000Z');
    f.a.failOn('undefineDomain');
    f.b.down = true;
    const report = await f.provider.expire();
    expect(report.deleted).toEqual([]);
    expect(report.failed).toEqual([
      {
        name: 'e4',
        expiresAt: '2026-12-03T08:30:00.000Z',
        error: expect.stringMatching(/injected failure of undefineDomain/),
      },
    ]);
    expect(report.unreachable).toEqual([{ host: 'edge-b', error: expect.stringMatching(/ECONNREFUSED/) }]);
  });
});
