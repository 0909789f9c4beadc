/**
 * The store actions views call (renderer/stores/*-actions.ts) and the stores following the
 * events of the app's own writes (issue 39): a host or catalog edit resolves once the stores
 * show it, a label edit shows at once, a lifecycle action says which proxies refused.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useAppConfigStore } from '../../../renderer/stores/app-config-store.js';
import { removeCatalogEntry, setCatalogDefault } from '../../../renderer/stores/catalog-actions.js';
import { importConfig } from '../../../renderer/stores/config-actions.js';
import { removeHost, saveHost } from '../../../renderer/stores/host-actions.js';
import { useHostsStore } from '../../../renderer/stores/hosts-store.js';
import { useProxiesStore } from '../../../renderer/stores/proxies-store.js';
import { actOn, labelProxy } from '../../../renderer/stores/proxy-actions.js';
import type { ConfigState } from '../../../shared/ipc.js';
import { recordKey } from '../../../shared/proxy-key.js';
import { type FakeBridge, type Handlers, deferred, fakeBridge, hostStatus, named, proxyRecord } from './fake-bridge.js';

const config = { type: 'kvm' as const };
const state: ConfigState = { path: '/srv/test/config.yaml', created: false, config };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  useAppConfigStore.setState(useAppConfigStore.getInitialState(), true);
  useHostsStore.setState(useHostsStore.getInitialState(), true);
  useProxiesStore.setState(useProxiesStore.getInitialState(), true);
});

/** A bridge that also answers the catalog read a config:changed starts; its writes call {@link changed} before answering, as ConfigWrites does. */
const writingBackend = (handlers: Handlers): FakeBridge =>
  fakeBridge({ 'machineTypes:list': () => [], 'images:list': () => [], ...handlers });
const changed = (b: FakeBridge) => b.emit('config:changed', { ...state, by: 'app' });

describe('hosts: the store follows config:changed', () => {
  it('lists the hosts again: a removed host goes, a kept one keeps its status and facts (host:status owns those)', async () => {
    let listed = [hostStatus({ name: 'edge-a' }), hostStatus({ name: 'edge-b' })];
    const b = fakeBridge({ 'hosts:list': () => listed });
    const stop = useHostsStore.getState().start();
    await settle();
    useHostsStore.getState().upsert(hostStatus({ name: 'edge-a', info: { hostname: 'a' } as never }));
    listed = [hostStatus({ name: 'edge-a', state: 'connecting' })];
    b.emit('config:changed', { ...state, by: 'file' });
    await settle();
    expect(useHostsStore.getState().hosts).toEqual([hostStatus({ name: 'edge-a', info: { hostname: 'a' } as never })]);
    // A file that does not load changes no host: the app keeps the last good config.
    listed = [];
    b.emit('config:changed', { path: state.path, created: false, error: 'line 1', by: 'file' });
    await settle();
    expect(useHostsStore.getState().hosts).toHaveLength(1);
    stop();
    expect(b.listeners('config:changed')).toBe(0);
  });
});

describe('host actions', () => {
  it('saveHost adds (or edits) through the config write: the hosts from the answer, the config from its event', async () => {
    const b = writingBackend({
      'hosts:add': () => (
        changed(b),
        { path: state.path, hosts: [hostStatus({ name: 'edge-c', state: 'connecting' })] }
      ),
      'hosts:update': () => (changed(b), { path: state.path, hosts: [hostStatus({ name: 'edge-d' })] }),
    });
    const stop = useAppConfigStore.getState().start();
    const images = deferred<[]>();
    b.handle('images:list', () => images.promise);
    const saving = saveHost({ name: 'edge-c', address: '203.0.113.10' });
    await settle();
    // Taken as answered, not after the catalog read: a status event that comes meanwhile stays.
    expect(useHostsStore.getState().hosts.map((h) => h.name)).toEqual(['edge-c']);
    useHostsStore.getState().upsert(hostStatus({ name: 'edge-c', state: 'host-key-unknown' }));
    images.resolve([]);
    await saving;
    expect(useHostsStore.getState().hosts.map((h) => h.state)).toEqual(['host-key-unknown']);
    b.handle('images:list', () => []);
    expect(useAppConfigStore.getState().state).toEqual(state);
    await saveHost({ name: 'edge-d', address: '203.0.113.10' }, 'edge-c');
    expect(b.calls.find((c) => c.channel === 'hosts:update')?.input).toEqual({
      name: 'edge-c',
      host: { name: 'edge-d', address: '203.0.113.10' },
    });
    expect(useHostsStore.getState().hosts.map((h) => h.name)).toEqual(['edge-d']);
    stop();
  });

  it("removeHost resolves with the backend's message; a refusal rejects and changes nothing", async () => {
    useHostsStore.getState().replace([hostStatus({ name: 'edge-a' })]);
    const b = writingBackend({
      'hosts:remove': () => (
        changed(b),
        { path: state.path, hosts: [], removed: 'edge-a', proxies: 2, message: '2 proxies keep running' }
      ),
    });
    const stop = useAppConfigStore.getState().start();
    expect(await removeHost('edge-a')).toBe('2 proxies keep running');
    expect(useHostsStore.getState().hosts).toEqual([]);
    stop();
    useHostsStore.getState().replace([hostStatus({ name: 'edge-a' })]);
    fakeBridge({ 'hosts:remove': () => Promise.reject(named('ConfigBusyError', '1 task is running')) });
    await expect(removeHost('edge-a')).rejects.toThrow('1 task is running');
    expect(useHostsStore.getState().hosts).toHaveLength(1);
  });
});

describe('catalog and config actions', () => {
  it('a removal, a default and an import are config writes: each resolves after the catalog read its event started', async () => {
    let images = 0;
    const b = writingBackend({
      'images:list': () => (images++, []),
      'images:remove': () => (changed(b), { path: state.path }),
      'defaults:set': () => (changed(b), { path: state.path }),
      'config:import': () => (
        changed(b),
        { path: state.path, diff: { hosts: [], machineTypes: [], images: [], other: [] } as never }
      ),
    });
    const stop = useAppConfigStore.getState().start();
    await removeCatalogEntry('image', 'old');
    await setCatalogDefault('machineType', 'small');
    await importConfig('type: kvm\n', 'yaml');
    expect(images).toBe(3);
    expect(b.calls.map((c) => [c.channel, c.input]).filter(([c]) => !String(c).endsWith(':list'))).toEqual([
      ['images:remove', { name: 'old', confirm: true }],
      ['defaults:set', { machineType: 'small' }],
      ['config:import', { text: 'type: kvm\n', syntax: 'yaml', confirm: true }],
    ]);
    stop();
  });
});

describe('proxy actions', () => {
  it('labelProxy shows the labels as stored at once (the LABELLED event follows)', async () => {
    const p = proxyRecord({ labels: { env: 'dev' } });
    useProxiesStore.setState({ proxies: { [recordKey(p)]: p } });
    const b = fakeBridge({
      'proxies:label': () => ({ host: p.host, labels: { env: 'prod', team: 'web' }, changed: true }),
    });
    await labelProxy(p, { env: 'prod', team: 'web' }, []);
    expect(b.calls).toEqual([{ channel: 'proxies:label', input: { name: p.name, set: { env: 'prod', team: 'web' } } }]);
    expect(useProxiesStore.getState().proxies[recordKey(p)]?.labels).toEqual({ env: 'prod', team: 'web' });
  });

  it("actOn starts each proxy's action and names the ones refused", async () => {
    const b = fakeBridge({
      'proxies:stop': ({ name }) =>
        name === 'b' ? Promise.reject(named('ProxyOwnedError', 'launched by someone else')) : { taskId: `t-${name}` },
      'proxies:delete': ({ name }) => ({ taskId: `t-${name}` }),
    });
    expect(await actOn('stop', ['a', 'b'])).toEqual(['b: launched by someone else']);
    expect(await actOn('delete', ['c'], true)).toEqual([]);
    expect(b.calls.map((c) => c.input)).toEqual([
      { name: 'a' },
      { name: 'b' },
      { name: 'c', confirm: true, force: true },
    ]);
  });
});
