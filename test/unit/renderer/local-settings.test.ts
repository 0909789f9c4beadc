/**
 * What the window remembers (renderer/stores/local-settings.ts under zustand's persist):
 * the view, the sort, the grouping and the open proxy (renderer/stores/ui-store.ts) survive a restart, including from the keys the
 * app wrote before persist; a bad or foreign stored value, a full storage or none at all
 * never break the store.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

/** localStorage as the page has it: strings by key; `full` makes every write throw, as a full quota does. */
class MemoryStorage {
  readonly items = new Map<string, string>();
  full = false;
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    if (this.full) throw new DOMException('quota exceeded', 'QuotaExceededError');
    this.items.set(key, String(value));
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

/** A fresh page load over `storage`: the stores are created (and hydrated) anew. */
async function load(storage: MemoryStorage | undefined) {
  vi.resetModules();
  if (storage) vi.stubGlobal('localStorage', storage);
  const ui = await import('../../../renderer/stores/ui-store.js');
  return { ui: ui.useUiStore, UI: ui.UI_SETTINGS };
}

afterEach(() => vi.unstubAllGlobals());

describe('remembered settings', () => {
  it('restores the view, sort and open proxy on the next start', async () => {
    const storage = new MemoryStorage();
    const first = await load(storage);
    first.ui.getState().setView('hosts');
    first.ui.getState().setSort({ key: 'age', dir: 'desc' });
    first.ui.getState().setGroupBy('env');
    const next = await load(storage);
    expect(next.ui.getState()).toMatchObject({
      view: 'hosts',
      sort: { key: 'age', dir: 'desc' },
      inspected: null,
      groupBy: 'env',
    });
    next.ui.getState().setGroupBy(null);
    expect((await load(storage)).ui.getState().groupBy).toBeNull();
    next.ui.getState().inspect('web-1', 'xml');
    expect((await load(storage)).ui.getState()).toMatchObject({
      view: 'proxies',
      inspected: { name: 'web-1', tab: 'xml' },
    });
    (await load(storage)).ui.getState().closeInspector();
    expect((await load(storage)).ui.getState().inspected).toBeNull();
  });

  it('keeps what was saved under the keys before persist, then moves it under one key', async () => {
    const storage = new MemoryStorage();
    storage.setItem('egress-desk.view', JSON.stringify('catalog'));
    storage.setItem('egress-desk.proxies.sort', JSON.stringify({ key: 'host', dir: 'desc' }));
    storage.setItem('egress-desk.inspector', JSON.stringify({ name: 'web-2', tab: 'seed' }));
    const { ui, UI } = await load(storage);
    const remembered = {
      view: 'catalog',
      sort: { key: 'host', dir: 'desc' },
      inspected: { name: 'web-2', tab: 'seed' },
      groupBy: null,
    };
    expect(ui.getState()).toMatchObject(remembered);
    expect([...storage.items.keys()]).toEqual([UI]);
    expect(JSON.parse(storage.getItem(UI)!)).toEqual({ state: remembered, version: 1 });
  });

  it('keeps the defaults for stored values it does not know (another build, a hand edit, not JSON)', async () => {
    const storage = new MemoryStorage();
    storage.setItem(
      'egress-desk.ui',
      JSON.stringify({
        state: { view: 'nowhere', sort: { key: 'colour', dir: 'up' }, inspected: { name: 7 }, groupBy: 'Not A Key' },
        version: 1,
      }),
    );
    const { ui } = await load(storage);
    expect(ui.getState()).toMatchObject({
      view: 'proxies',
      sort: { key: 'name', dir: 'asc' },
      inspected: null,
      groupBy: null,
    });
    storage.setItem('egress-desk.ui', '{not json');
    expect((await load(storage)).ui.getState()).toMatchObject({ view: 'proxies', inspected: null });
  });

  it('still changes the view when the storage is full or absent (the setting is only forgotten)', async () => {
    const storage = new MemoryStorage();
    storage.full = true;
    const full = await load(storage);
    expect(() => full.ui.getState().setView('tasks')).not.toThrow();
    expect(full.ui.getState().view).toBe('tasks');
    vi.unstubAllGlobals();
    const none = await load(undefined);
    expect(() => none.ui.getState().setView('config')).not.toThrow();
    expect(none.ui.getState().view).toBe('config');
  });
});
