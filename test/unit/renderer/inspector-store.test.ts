/** The inspector's store (renderer/stores/inspector-store.ts) over a bridge of the test's making. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useInspectorStore } from '../../../renderer/stores/inspector-store.js';
import { ErrorNames } from '../../../shared/ipc-transport.js';
import type { ProxyInspectionView } from '../../../shared/proxies.js';
import { deferred, fakeBridge, inspectionOf, named, proxyRecord } from './fake-bridge.js';

const web1 = inspectionOf(proxyRecord());

beforeEach(() => useInspectorStore.setState(useInspectorStore.getInitialState(), true));
afterEach(() => vi.useRealTimers());

describe('inspector store', () => {
  it('open, refresh, close: the row to return to is the one closed', async () => {
    const b = fakeBridge({ 'proxies:inspect': () => web1 });
    const s = useInspectorStore.getState();
    s.open('web-1');
    expect(useInspectorStore.getState()).toMatchObject({ target: { name: 'web-1', tab: 'overview' }, loading: true });
    await s.refresh(b.api);
    expect(useInspectorStore.getState()).toMatchObject({ inspection: web1, loading: false, gone: false });
    s.setTab('seed');
    expect(useInspectorStore.getState().target).toEqual({ name: 'web-1', tab: 'seed' });
    s.close();
    expect(useInspectorStore.getState()).toMatchObject({ target: null, inspection: undefined, returnTo: 'web-1' });
    s.setTab('xml');
    expect(useInspectorStore.getState().target).toBeNull();
  });

  it('drops an answer for a proxy no longer open', async () => {
    const slow = deferred<ProxyInspectionView>();
    const b = fakeBridge({ 'proxies:inspect': ({ name }) => (name === 'web-1' ? slow.promise : inspectionOf(proxyRecord({ name }))) });
    const s = useInspectorStore.getState();
    s.open('web-1');
    const first = s.refresh(b.api);
    s.open('web-2');
    await s.refresh(b.api);
    slow.resolve(web1);
    await first;
    expect(useInspectorStore.getState().inspection?.proxy.name).toBe('web-2');
  });

  it('marks the proxy gone when inspect answers that it does not exist, and shows other errors', async () => {
    const s = useInspectorStore.getState();
    s.open('web-1');
    await s.refresh(fakeBridge({ 'proxies:inspect': () => Promise.reject(named(ErrorNames.proxyNotFound, 'no proxy named web-1')) }).api);
    expect(useInspectorStore.getState()).toMatchObject({ gone: true, error: undefined, loading: false });
    s.open('web-1');
    await s.refresh(fakeBridge({ 'proxies:inspect': () => Promise.reject(new Error('host edge-a is not connected')) }).api);
    expect(useInspectorStore.getState()).toMatchObject({ gone: false, error: 'host edge-a is not connected' });
  });

  it('follows proxy:changed: one inspect after a burst for the open proxy, none for others, gone on removal', async () => {
    vi.useFakeTimers();
    const b = fakeBridge({ 'proxies:inspect': () => web1 });
    const s = useInspectorStore.getState();
    s.open('web-1');
    await s.refresh(b.api);
    const change = { host: 'edge-a', domain: web1.proxy.id, name: 'web-1', removed: false };
    s.changed(b.api, { ...change, event: 'STARTED' });
    s.changed(b.api, { ...change, event: 'RESUMED' });
    s.changed(b.api, { host: 'edge-a', domain: 'ep-web-2-abcdef', name: 'web-2', event: 'STARTED', removed: false });
    await vi.runAllTimersAsync();
    expect(b.calls.length).toBe(2);
    s.changed(b.api, { ...change, event: 'UNDEFINED', removed: true });
    expect(useInspectorStore.getState()).toMatchObject({ gone: true, inspection: web1 });
  });
});
