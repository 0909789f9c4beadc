/**
 * Replace over two in-memory hosts: the new one is ready before anything of the old one is
 * touched; a failure of the new one leaves the old one as it was; the name keeps its spec,
 * labels and credentials; while both exist, lookups by name take the one that serves.
 */
import { describe, expect, it } from 'vitest';
import { launch } from '../../../electron/services/provider/kvm/ops/launch.js';
import { alternateInstanceId, instanceId } from '../../../electron/services/provider/kvm/names.js';
import {
  METADATA_KEY,
  METADATA_NS,
  buildInstanceMetadataXml,
  parseInstanceMetadata,
} from '../../../electron/services/provider/kvm/xml/metadata.js';
import { fixture } from './provider-fixture.js';

describe('proxies replace', () => {
  it('launches the new one under the other id, ready, then removes the old one; name, labels, expiry and credentials stay', async () => {
    const f = fixture();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    await f.provider.launch({ name: 'web', host: 'edge-a', labels: { env: 'prod' }, expiresAt }, { wait: true });
    const credentials = await f.credentials.get('web');
    const order: string[] = [];
    const r = await f.provider.replace('web', {
      host: 'edge-b',
      onStep: (e) => {
        if (e.phase !== 'start') return;
        // What exists when each step starts: the old domain must still be there up to retire.
        order.push(`${e.step}:${Object.keys(f.a.snapshot().domains).join(',')}`);
      },
    });
    expect(order.at(-3)).toBe(`proxy:${instanceId('web')}`);
    expect(order.at(-2)).toBe(`retire:${instanceId('web')}`);
    expect(order.at(-1)).toBe('finish:');
    expect(r.old).toMatchObject({ host: 'edge-a', domain: instanceId('web') });
    expect(r.old.removed).toEqual([
      `domain ${instanceId('web')}`,
      `volume ${instanceId('web')}-root.qcow2`,
      `volume ${instanceId('web')}-seed.iso`,
    ]);
    expect(r.proxy).toMatchObject({
      name: 'web',
      id: alternateInstanceId('web'),
      host: 'edge-b',
      labels: { env: 'prod' },
      expiresAt,
    });
    expect(r.proxy.replacing).toBeUndefined();
    expect(f.a.snapshot().domains).toEqual({});
    expect(f.a.snapshot().volumes.default!.filter((v) => v.startsWith('ep-'))).toEqual([]);
    expect(await f.credentials.get('web')).toEqual(credentials);
    expect(r.url).toContain(`${credentials!.username}:${credentials!.password}@`);
    // The replaces element is gone once the old one is: the name is one proxy again.
    const domain = await f.b.getDomain(alternateInstanceId('web'));
    expect(parseInstanceMetadata(domain!.xml)?.replaces).toBeUndefined();
    expect((await f.provider.list()).proxies.map((p) => [p.name, p.id, p.host])).toEqual([
      ['web', alternateInstanceId('web'), 'edge-b'],
    ]);
    // Replaced again, it goes back to the first id.
    const again = await f.provider.replace('web');
    expect(again.proxy).toMatchObject({ id: instanceId('web'), host: 'edge-b' });
    expect(await f.credentials.get('web')).toEqual(credentials);
  });

  it('a new one that fails, or is not ready in time, is rolled back and the old one is untouched', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'keep', host: 'edge-a' }, { wait: true });
    // The base volume a launch uploads stays on the host by design (shared): the rest must be as before.
    const instances = () =>
      JSON.stringify(
        Object.values(f.snapshot()).map((h) => [h.domains, h.volumes.default!.filter((v) => v.startsWith('ep-'))]),
      );
    const before = instances();
    const credentials = await f.credentials.get('keep');
    f.b.failOn('startDomain');
    await expect(f.provider.replace('keep', { host: 'edge-b' })).rejects.toThrow(/launch failed at step "boot"/);
    expect(instances()).toEqual(before);
    f.probe.open = false;
    await expect(f.provider.replace('keep', { timeoutMs: 300 })).rejects.toThrow(/was not ready in time.*removed/);
    expect(instances()).toEqual(before);
    expect(await f.credentials.get('keep')).toEqual(credentials);
  });

  it('while both exist, the listing marks the new one and URL, inspect and get take the old one', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'mid', host: 'edge-a' }, { wait: true });
    let seen: {
      url?: string | undefined;
      inspected?: string;
      get?: string | undefined;
      rows?: Array<[string, string | undefined]>;
    } = {};
    await f.provider.replace('mid', {
      host: 'edge-b',
      // Between the new one's readiness and the old one's removal, look the name up.
      launcher: async (ctx, spec, options) => {
        const r = await launch(ctx, spec, options);
        const listing = await f.provider.list();
        seen = {
          url: await f.provider.proxyUrl('mid'),
          inspected: (await f.provider.inspect('mid')).proxy.id,
          get: (await f.provider.get('mid'))?.id,
          rows: listing.proxies.map((p) => [p.id, p.replacing]),
        };
        return r;
      },
    });
    expect(seen.inspected).toBe(instanceId('mid'));
    expect(seen.get).toBe(instanceId('mid'));
    expect(seen.url).toMatch(/^http:\/\//);
    expect(seen.rows?.sort()).toEqual(
      [
        [alternateInstanceId('mid'), instanceId('mid')],
        [instanceId('mid'), undefined],
      ].sort(),
    );
  });

  it("refuses, changing nothing: someone else's proxy, an unknown host, and a spec the metadata cannot rebuild", async () => {
    const f = fixture();
    await f.providerAs({ user: 'bob', workstation: 'ws-9' }).launch({ name: 'bobs', host: 'edge-a' }, { wait: true });
    await f.provider.launch({ name: 'custom', host: 'edge-a', allow: ['10.9.0.0/16'] }, { wait: true });
    // As a proxy launched before 0.2 with its own list: its metadata does not record the list.
    const custom = parseInstanceMetadata((await f.a.getDomain(instanceId('custom')))!.xml)!;
    expect(custom.allow).toEqual(['10.9.0.0/16']);
    const { allow: _unrecorded, ...old } = custom;
    await f.a.setMetadata(instanceId('custom'), {
      uri: METADATA_NS,
      key: METADATA_KEY,
      xml: buildInstanceMetadataXml(old),
    });
    const before = f.snapshot();
    await expect(f.provider.replace('bobs')).rejects.toThrow(
      /launched by bob@ws-9, not by you: replace it only with their agreement/,
    );
    await expect(f.provider.replace('custom', { host: 'nowhere' })).rejects.toThrow(/no host named "nowhere"/);
    await expect(f.provider.replace('custom')).rejects.toThrow(/cannot be rebuilt.*--allow/);
    await f.credentials.delete('bobs');
    await expect(f.provider.replace('bobs', { force: true })).rejects.toThrow(
      /credentials of bobs are not stored on this workstation/,
    );
    expect(f.snapshot()).toEqual(before);
    // With the allow list given, it reproduces.
    const r = await f.provider.replace('custom', { allow: ['10.9.0.0/16'] });
    expect(r.proxy.id).toBe(alternateInstanceId('custom'));
    // The replacement records its list: replaced again (as auto-replace does, with nothing given), it reproduces alone.
    expect(parseInstanceMetadata((await f.a.getDomain(alternateInstanceId('custom')))!.xml)!.allow).toEqual([
      '10.9.0.0/16',
    ]);
    const again = await f.provider.replace('custom');
    expect(again.proxy.id).toBe(instanceId('custom'));
  });

  it('a proxy launched with its own allow list (recorded in its metadata) is replaced with nothing given; the default list is not recorded', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'own', host: 'edge-a', allow: ['192.168.150.0/24', '10.1.2.3'] }, { wait: true });
    await f.provider.launch({ name: 'plain', host: 'edge-a' }, { wait: true });
    expect(parseInstanceMetadata((await f.a.getDomain(instanceId('plain')))!.xml)!.allow).toBeUndefined();
    const r = await f.provider.replace('own', { host: 'edge-b' });
    expect(r.proxy).toMatchObject({ id: alternateInstanceId('own'), host: 'edge-b' });
    expect(parseInstanceMetadata((await f.b.getDomain(alternateInstanceId('own')))!.xml)!.allow).toEqual([
      '192.168.150.0/24',
      '10.1.2.3',
    ]);
  });

  it('delete of a name removes a replacement left half-way too', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'half', host: 'edge-a' }, { wait: true });
    await expect(
      f.provider.replace('half', {
        launcher: async (ctx, spec, options) => {
          const r = await launch(ctx, spec, options);
          throw Object.assign(new Error('crashed after the new one was ready'), { r });
        },
      }),
    ).rejects.toThrow('crashed after the new one was ready');
    expect(Object.keys(f.a.snapshot().domains).sort()).toEqual(
      [instanceId('half'), alternateInstanceId('half')].sort(),
    );
    const d = await f.provider.delete('half');
    expect(d.removed.filter((r) => r.startsWith('domain'))).toHaveLength(2);
    expect(f.a.snapshot().domains).toEqual({});
  });
});
