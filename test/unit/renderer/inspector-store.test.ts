/**
 * The inspector (renderer/stores/inspector-store.ts, following the ui store's `inspected`)
 * over a bridge of the test's making.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useInspectorStore } from '../../../renderer/stores/inspector-store.js';
import { useUiStore } from '../../../renderer/stores/ui-store.js';
import { ErrorNames } from '../../../shared/ipc-transport.js';
import type { ProxyInspectionView } from '../../../shared/proxies.js';
import { deferred, fakeBridge, inspectionOf, named, proxyRecord } from './fake-bridge.js';

const web1 = inspectionOf(proxyRecord());
const ui = () => useUiStore.getState();

beforeEach(() => {
  useUiStore.setState(useUiStore.getInitialState(), true);
  useInspectorStore.setState(useInspectorStore.getInitialState(), true);
});
afterEach(() => vi.useRealTimers());

describe('navigation to and from the inspector (ui store)', () => {
  it('inspect opens the Proxies view on the proxy; Back returns to its row', () => {
    ui().setView('hosts');
    ui().inspect('web-1');
    expect(ui()).toMatchObject({ view: 'proxies', inspected: { name: 'web-1', tab: 'overview' } });
    ui().setInspectorTab('seed');
    expect(ui().inspected).toEqual({ name: 'web-1', tab: 'seed' });
    ui().closeInspector();
    expect(ui()).toMatchObject({ inspected: null, returnTo: 'web-1' });
    ui().setInspectorTab('xml');
    expect(ui().inspected).toBeNull();
  });

  it('a sidebar click on Proxies, or any view, closes the inspector', () => {
    ui().inspect('web-1');
    ui().setView('proxies');
    expect(ui()).toMatchObject({ view: 'proxies', inspected: null, returnTo: undefined });
    ui().inspect('web-1');
    ui().setImportDraft({ fileName: 'x.yaml', text: '', syntax: 'yaml' });
    expect(ui()).toMatchObject({ view: 'config', inspected: null });
  });
});

describe('inspector store', () => {
  it('loads the open proxy, and forgets it when the inspector closes', async () => {
    const b = fakeBridge({ 'proxies:inspect': () => web1 });
    ui().inspect('web-1');
    expect(useInspectorStore.getState().loading).toBe(true);
    await useInspectorStore.getState().refresh();
    expect(useInspectorStore.getState()).toMatchObject({ inspection: web1, loading: false, gone: false });
    ui().closeInspector();
    expect(useInspectorStore.getState()).toMatchObject({ inspection: undefined, loading: false });
    await useInspectorStore.getState().refresh();
    expect(b.calls.length).toBe(1);
  });

  it('drops an answer for a proxy no longer open', async () => {
    const slow = deferred<ProxyInspectionView>();
    fakeBridge({
      'proxies:inspect': ({ name }) => (name === 'web-1' ? slow.promise : inspectionOf(proxyRecord({ name }))),
    });
    ui().inspect('web-1');
    const first = useInspectorStore.getState().refresh();
    ui().inspect('web-2');
    await useInspectorStore.getState().refresh();
    slow.resolve(web1);
    await first;
    expect(useInspectorStore.getState().inspection?.proxy.name).toBe('web-2');
  });

  it('marks the proxy gone when inspect answers that it does not exist, and shows other errors', async () => {
    ui().inspect('web-1');
    fakeBridge({ 'proxies:inspect': () => Promise.reject(named(ErrorNames.proxyNotFound, 'no proxy named web-1')) });
    await useInspectorStore.getState().refresh();
    expect(useInspectorStore.getState()).toMatchObject({ gone: true, error: undefined, loading: false });
    ui().closeInspector();
    ui().inspect('web-1');
    fakeBridge({ 'proxies:inspect': () => Promise.reject(new Error('host edge-a is not connected')) });
    await useInspectorStore.getState().refresh();
    expect(useInspectorStore.getState()).toMatchObject({ gone: false, error: 'host edge-a is not connected' });
  });

  it('follows proxy:changed: one inspect after a burst for the open proxy, none for others, gone on removal', async () => {
    vi.useFakeTimers();
    const b = fakeBridge({ 'proxies:inspect': () => web1 });
    const s = useInspectorStore.getState();
    ui().inspect('web-1');
    await s.refresh();
    const change = { host: 'edge-a', domain: web1.proxy.id, name: 'web-1', removed: false, proxy: web1.proxy } as const;
    s.changed({ ...change, event: 'STARTED' });
    s.changed({ ...change, event: 'RESUMED' });
    s.changed({
      host: 'edge-a',
      domain: 'ep-web-2-abcdef',
      name: 'web-2',
      event: 'STARTED',
      removed: false,
      proxy: proxyRecord({ name: 'web-2', id: 'ep-web-2-abcdef' }),
    });
    await vi.runAllTimersAsync();
    expect(b.calls.length).toBe(2);
    s.changed({ host: change.host, domain: change.domain, name: change.name, event: 'UNDEFINED', removed: true });
    expect(useInspectorStore.getState()).toMatchObject({ gone: true, inspection: web1 });
  });
});
