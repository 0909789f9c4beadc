/**
 * The inspector's inspection: the `proxies:inspect` answer for the proxy the ui store has
 * open (`inspected`: navigation has one owner, and this store follows it), refreshed when
 * a `proxy:changed` event names it. A removed proxy (the event says so, or inspect answers
 * ProxyNotFoundError) is marked gone: the last answer stays on screen, labelled as such.
 */
import { create } from 'zustand';
import { ErrorNames, isErrorNamed } from '../../shared/ipc-transport.js';
import type { ProxyChanged } from '../../shared/proxy-changed.js';
import type { ProxyInspectionView } from '../../shared/proxies.js';
import { errorMessage } from '../format.js';
import { concerns } from '../inspection.js';
import { storeApi } from './store-api.js';
import { useUiStore } from './ui-store.js';

export interface InspectorStore {
  inspection?: ProxyInspectionView | undefined;
  loading: boolean;
  error?: string | undefined;
  /** The proxy no longer exists (deleted here or elsewhere). */
  gone: boolean;
  /** (Re)loads the open proxy's inspection. Answers that arrive after the open proxy changed are dropped. */
  refresh(): Promise<void>;
  /** Applies a `proxy:changed` event: refreshes when it concerns the open proxy. */
  changed(change: ProxyChanged): void;
  /** Loads the open proxy's inspection and follows `proxy:changed` for it; returns the unsubscribe. */
  follow(): () => void;
}

/** Answers of an older target or an older refresh are dropped: only the newest generation is applied. */
let generation = 0;
/** Events come in bursts (a start is STARTED, then RESUMED…): one inspect after the burst. */
const EVENT_COALESCE_MS = 300;
let pending: ReturnType<typeof setTimeout> | undefined;

const openName = () => useUiStore.getState().inspected?.name;

export const useInspectorStore = create<InspectorStore>((set, get) => ({
  loading: false,
  gone: false,
  async refresh() {
    const name = openName();
    if (name === undefined) return;
    const mine = ++generation;
    set({ loading: true });
    try {
      const inspection = await storeApi().proxies.inspect({ name });
      if (mine === generation) set({ inspection, loading: false, error: undefined, gone: false });
    } catch (err) {
      if (mine !== generation) return;
      if (isErrorNamed(err, ErrorNames.proxyNotFound)) set({ loading: false, gone: true, error: undefined });
      else set({ loading: false, error: errorMessage(err) });
    }
  },
  changed(change) {
    const name = openName();
    if (name === undefined || !concerns(change, name, get().inspection)) return;
    if (change.removed) {
      generation++;
      set({ gone: true, loading: false });
      return;
    }
    clearTimeout(pending);
    pending = setTimeout(() => void get().refresh(), EVENT_COALESCE_MS);
  },
  follow() {
    const api = storeApi();
    void get().refresh();
    return api.on('proxy:changed', (change) => get().changed(change));
  },
}));

// Another proxy opened, or the inspector closed (Back, Escape, a sidebar click): what was
// loaded or under way for the previous one is dropped.
useUiStore.subscribe((now, before) => {
  if (now.inspected?.name === before.inspected?.name) return;
  generation++;
  clearTimeout(pending);
  useInspectorStore.setState({ inspection: undefined, error: undefined, gone: false, loading: now.inspected !== null });
});
