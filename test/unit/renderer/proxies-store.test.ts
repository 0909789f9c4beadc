/** How the Proxies table's store is filled by `proxies:list` and applies `proxy:changed` (renderer/stores/proxies-store.ts). */
import { beforeEach, describe, expect, it } from 'vitest';
import { useProxiesStore } from '../../../renderer/stores/proxies-store.js';
import { proxyKey, recordKey } from '../../../shared/proxy-key.js';
import type { FleetListingView } from '../../../shared/proxies.js';
import { deferred, fakeBridge, proxyRecord } from './fake-bridge.js';

const record = (name: string, host: string) => proxyRecord({ name, host, state: 'shutoff' });
const rows = () => Object.keys(useProxiesStore.getState().proxies).sort();

beforeEach(() => {
  const proxies = [record('web-1', 'edge-a'), record('web-1', 'edge-b'), record('web-2', 'edge-a')];
  useProxiesStore.setState({ proxies: Object.fromEntries(proxies.map((p) => [recordKey(p), p])), loaded: true });
});

describe('proxies store: removals', () => {
  it('drops the row by host and domain', () => {
    useProxiesStore.getState().apply({ host: 'edge-a', domain: 'ep-web-2-abcdef', event: 'UNDEFINED', removed: true });
    expect(rows()).toEqual(['edge-a/ep-web-1-abcdef', 'edge-b/ep-web-1-abcdef']);
  });

  it('drops the row by host and name when the removal does not name its domain', () => {
    useProxiesStore.getState().apply({ host: 'edge-a', domain: '', name: 'web-1', event: 'DELETED', removed: true });
    expect(rows()).toEqual(['edge-a/ep-web-2-abcdef', 'edge-b/ep-web-1-abcdef']);
  });

  it('leaves every row alone for a removal that matches none (another host, another name)', () => {
    const before = useProxiesStore.getState().proxies;
    useProxiesStore
      .getState()
      .apply({ host: 'edge-c', domain: 'ep-web-1-abcdef', name: 'web-1', event: 'DELETED', removed: true });
    useProxiesStore
      .getState()
      .apply({ host: 'edge-b', domain: 'ep-web-2-abcdef', name: 'web-2', event: 'DELETED', removed: true });
    expect(useProxiesStore.getState().proxies).toBe(before);
  });
});

describe('proxies store: filling', () => {
  it('lists once and applies the changes seen meanwhile on top of the listing', async () => {
    useProxiesStore.setState(useProxiesStore.getInitialState(), true);
    const listing = deferred<FleetListingView>();
    const b = fakeBridge({ 'proxies:list': () => listing.promise });
    const stop = useProxiesStore.getState().start();
    const started = { ...record('web-1', 'edge-a'), state: 'running' as const };
    b.emit('proxy:changed', {
      host: 'edge-a',
      domain: started.id,
      name: started.name,
      event: 'STARTED',
      removed: false,
      proxy: started,
    });
    listing.resolve({ proxies: [record('web-1', 'edge-a'), record('web-2', 'edge-a')], hosts: [] });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(useProxiesStore.getState().loaded).toBe(true);
    expect(rows()).toEqual(['edge-a/ep-web-1-abcdef', 'edge-a/ep-web-2-abcdef']);
    expect(useProxiesStore.getState().proxies[proxyKey('edge-a', 'ep-web-1-abcdef')]?.state).toBe('running');
    stop();
    expect(b.listeners('proxy:changed')).toBe(0);
  });

  it('a failed listing says why', async () => {
    useProxiesStore.setState(useProxiesStore.getInitialState(), true);
    fakeBridge({ 'proxies:list': () => Promise.reject(new Error('no host reachable')) });
    useProxiesStore.getState().start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(useProxiesStore.getState()).toMatchObject({ loaded: true, error: 'no host reachable' });
  });
});
