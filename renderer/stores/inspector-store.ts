/**
 * The inspector: which proxy is open (remembered across a reload, like the current view),
 * its tab, and its `proxies:inspect` answer, refreshed when a `proxy:changed` event names
 * it. A removed proxy (the event says so, or inspect answers ProxyNotFoundError) is marked
 * gone: the last answer stays on screen, labelled as such.
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { ErrorNames, isErrorNamed } from '../../shared/ipc-transport.js';
import type { EgressApi } from '../../shared/ipc.js';
import type { ProxyChanged, ProxyInspectionView } from '../../shared/proxies.js';
import { errorMessage } from '../format.js';
import { concerns } from '../inspection.js';
import { isRecord, localSettings } from './local-settings.js';

interface Target {
  name: string;
  /**
   * The open tab's id. Any string: the tabs are InspectorView's TABS list (a new tab is one
   * entry there), and the view shows its first tab when a remembered id is not in it.
   */
  tab: string;
}

const isTarget = (v: unknown): v is Target | null => v === null || (isRecord(v) && typeof v.name === 'string' && typeof v.tab === 'string');

export interface InspectorStore {
  /** The proxy open in the inspector, by name (names are unique across the fleet); null when closed. */
  target: Target | null;
  inspection?: ProxyInspectionView;
  loading: boolean;
  error?: string;
  /** The proxy no longer exists (deleted here or elsewhere). */
  gone: boolean;
  /** The proxy the inspector was last closed on: the table gives its row the focus back. */
  returnTo?: string;
  open(name: string, tab?: string): void;
  close(): void;
  setTab(tab: string): void;
  /** (Re)loads the open proxy's inspection. Answers that arrive after the target changed are dropped. */
  refresh(api: EgressApi): Promise<void>;
  /** Applies a `proxy:changed` event: refreshes when it concerns the open proxy. */
  changed(api: EgressApi, change: ProxyChanged): void;
}

/** Answers of an older target or an older refresh are dropped: only the newest generation is applied. */
let generation = 0;
/** Events come in bursts (a start is STARTED, then RESUMED…): one inspect after the burst. */
const EVENT_COALESCE_MS = 300;
let pending: ReturnType<typeof setTimeout> | undefined;

/** What is remembered between starts: the open proxy and tab. */
type RememberedInspector = Pick<InspectorStore, 'target'>;

/** The localStorage key, and the key the target had before `persist` (read once, then removed). */
export const INSPECTOR_SETTINGS = 'egress-desk.inspector.open';
const LEGACY_INSPECTOR_KEYS: Record<string, keyof RememberedInspector> = { 'egress-desk.inspector': 'target' };

export const useInspectorStore = create<InspectorStore>()(
  persist<InspectorStore, [], [], RememberedInspector>(
    (set, get) => ({
      target: null,
      loading: false,
      gone: false,
      open(name, tab = 'overview') {
        generation++;
        set({ target: { name, tab }, inspection: undefined, error: undefined, gone: false, loading: true, returnTo: undefined });
      },
      close() {
        generation++;
        clearTimeout(pending);
        const name = get().target?.name;
        set({ target: null, inspection: undefined, error: undefined, gone: false, loading: false, returnTo: name });
      },
      setTab(tab) {
        const target = get().target;
        if (target) set({ target: { ...target, tab } });
      },
      async refresh(api) {
        const target = get().target;
        if (!target) return;
        const mine = ++generation;
        set({ loading: true });
        try {
          const inspection = await api.proxies.inspect({ name: target.name });
          if (mine === generation) set({ inspection, loading: false, error: undefined, gone: false });
        } catch (err) {
          if (mine !== generation) return;
          if (isErrorNamed(err, ErrorNames.proxyNotFound)) set({ loading: false, gone: true, error: undefined });
          else set({ loading: false, error: errorMessage(err) });
        }
      },
      changed(api, change) {
        const { target, inspection } = get();
        if (!target || !concerns(change, target.name, inspection)) return;
        if (change.removed) {
          generation++;
          set({ gone: true, loading: false });
          return;
        }
        clearTimeout(pending);
        pending = setTimeout(() => void get().refresh(api), EVENT_COALESCE_MS);
      },
    }),
    {
      name: INSPECTOR_SETTINGS,
      version: 1,
      storage: localSettings<RememberedInspector>(LEGACY_INSPECTOR_KEYS),
      partialize: (s) => ({ target: s.target }),
      // Version 0 is the key of its own: the same field, which merge validates.
      migrate: (stored) => stored as RememberedInspector,
      merge: (stored, current) => (isRecord(stored) && isTarget(stored.target) ? { ...current, target: stored.target } : current),
    },
  ),
);
