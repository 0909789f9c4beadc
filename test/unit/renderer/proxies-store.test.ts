/** How the Proxies table's store applies `proxy:changed` (renderer/stores/proxies-store.ts). */
import { beforeEach, describe, expect, it } from 'vitest';
import { proxyKey, useProxiesStore } from '../../../renderer/stores/proxies-store.js';
import type { ProxyRecordView } from '../../../shared/proxies.js';
import { sampleRecordView } from '../../support/proxy-samples.js';

const record = (name: string, host: string): ProxyRecordView => sampleRecordView({ name, id: `ep-${name}-abcdef`, host, createdAt: '2026-12-02T10:00:00.000Z' });
const rows = () => Object.keys(useProxiesStore.getState().proxies).sort();

beforeEach(() => {
  const proxies = [record('web-1', 'edge-a'), record('web-1', 'edge-b'), record('web-2', 'edge-a')];
  useProxiesStore.setState({ proxies: Object.fromEntries(proxies.map((p) => [proxyKey(p), p])), loaded: true });
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
    useProxiesStore.getState().apply({ host: 'edge-c', domain: 'ep-web-1-abcdef', name: 'web-1', event: 'DELETED', removed: true });
    useProxiesStore.getState().apply({ host: 'edge-b', domain: 'ep-web-2-abcdef', name: 'web-2', event: 'DELETED', removed: true });
    expect(useProxiesStore.getState().proxies).toBe(before);
  });
});
