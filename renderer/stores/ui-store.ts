/**
 * The window's own state. Where the person is: the view, and in Proxies the proxy open in
 * the inspector and its tab; this store is the one owner of that, so a sidebar click, the
 * inspector's Back and a menu's import cannot disagree (the inspector store follows it for
 * the inspection itself). Remembered between starts, in localStorage through `persist`:
 * the view, the open proxy and the proxies' sort and grouping. Also the Launch dialog, the import
 * draft and toasts.
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { LABEL_KEY } from '../../shared/fleet-meta.js';
import { isRecord, localSettings } from './local-settings.js';

export const VIEWS = ['proxies', 'gateway', 'hosts', 'catalog', 'config', 'tasks', 'settings'] as const;
export type View = (typeof VIEWS)[number];
export const VIEW_LABELS: Record<View, string> = {
  proxies: 'Proxies',
  gateway: 'Gateway',
  hosts: 'Hosts',
  catalog: 'Images & machine types',
  config: 'Config',
  tasks: 'Tasks',
  settings: 'Settings',
};

export const SORT_KEYS = ['state', 'name', 'host', 'address', 'port', 'machineType', 'image', 'age'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export interface Sort {
  key: SortKey;
  dir: 'asc' | 'desc';
}

/** The proxy open in the inspector, by name (names are unique across the fleet), and its tab. */
export interface Inspected {
  name: string;
  /**
   * The open tab's id. Any string: the tabs are InspectorView's TABS list (a new tab is one
   * entry there), and the view shows its first tab when a remembered id is not in it.
   */
  tab: string;
}

const isView = (v: unknown): v is View => typeof v === 'string' && (VIEWS as readonly string[]).includes(v);
const isSort = (v: unknown): v is Sort =>
  typeof v === 'object' &&
  v !== null &&
  (SORT_KEYS as readonly unknown[]).includes((v as Sort).key) &&
  ((v as Sort).dir === 'asc' || (v as Sort).dir === 'desc');

interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
}

/** A config file the native menu opened, waiting for the Config view's import preview. */
export interface ImportDraft {
  fileName: string;
  text: string;
  syntax: 'yaml' | 'json';
}

export interface UiStore {
  view: View;
  /** The proxy open in the inspector (the Proxies view shows it instead of the table); null when closed. */
  inspected: Inspected | null;
  /** The proxy the inspector was last closed on (Back, Escape): the table gives its row the focus back. */
  returnTo?: string | undefined;
  importDraft?: ImportDraft | undefined;
  sort: Sort;
  /** The label key the Proxies table groups its rows by; null: not grouped. */
  groupBy: string | null;
  launchOpen: boolean;
  toasts: Toast[];
  /** Shows a view as the sidebar names it: Proxies is the table, so an open inspector closes. */
  setView(view: View): void;
  /** Opens the inspector on a proxy, in the Proxies view. */
  inspect(name: string, tab?: string): void;
  /** Back to the table from the inspector; the proxy's row gets the focus back. */
  closeInspector(): void;
  setInspectorTab(tab: string): void;
  setSort(sort: Sort): void;
  setGroupBy(key: string | null): void;
  setLaunchOpen(open: boolean): void;
  /** Shows the Config view with this text in its import box, previewed; undefined once taken. */
  setImportDraft(draft: ImportDraft | undefined): void;
  /**
   * Hands `take` each import draft once, clearing it: the one waiting now, then each that
   * comes (the Config view's import panel, while it is shown). Answers the unsubscribe.
   */
  takeImportDrafts(take: (draft: ImportDraft) => void): () => void;
  toast(text: string, kind?: Toast['kind']): void;
  dismiss(id: number): void;
}

/** What is remembered between starts. */
type RememberedUi = Pick<UiStore, 'view' | 'sort' | 'inspected' | 'groupBy'>;

/** The localStorage key, and the keys each setting had before `persist` (read once, then removed). */
export const UI_SETTINGS = 'egress-desk.ui';
const LEGACY_UI_KEYS: Record<string, keyof RememberedUi> = {
  'egress-desk.view': 'view',
  'egress-desk.proxies.sort': 'sort',
  'egress-desk.inspector': 'inspected',
};

const isGroupBy = (v: unknown): v is string | null => v === null || (typeof v === 'string' && LABEL_KEY.test(v));
const isInspected = (v: unknown): v is Inspected | null =>
  v === null || (isRecord(v) && typeof v.name === 'string' && typeof v.tab === 'string');

let nextToast = 1;

export const useUiStore = create<UiStore>()(
  persist<UiStore, [], [], RememberedUi>(
    (set, get, api) => ({
      view: 'proxies',
      inspected: null,
      sort: { key: 'name', dir: 'asc' },
      groupBy: null,
      launchOpen: false,
      toasts: [],
      setView(view) {
        set({ view, inspected: null, returnTo: undefined });
      },
      inspect(name, tab = 'overview') {
        set({ view: 'proxies', inspected: { name, tab }, returnTo: undefined });
      },
      closeInspector() {
        set((s) => ({ inspected: null, returnTo: s.inspected?.name }));
      },
      setInspectorTab(tab) {
        set((s) => (s.inspected ? { inspected: { ...s.inspected, tab } } : {}));
      },
      setSort(sort) {
        set({ sort });
      },
      setGroupBy(groupBy) {
        set({ groupBy });
      },
      setLaunchOpen(launchOpen) {
        set({ launchOpen });
      },
      setImportDraft(importDraft) {
        if (importDraft) get().setView('config');
        set({ importDraft });
      },
      takeImportDrafts(take) {
        const hand = (draft: ImportDraft | undefined) => {
          if (!draft) return;
          set({ importDraft: undefined });
          take(draft);
        };
        hand(get().importDraft);
        return api.subscribe((s) => hand(s.importDraft));
      },
      toast(text, kind = 'info') {
        const id = nextToast++;
        set((s) => ({ toasts: [...s.toasts, { id, text, kind }] }));
        setTimeout(() => get().dismiss(id), kind === 'error' ? 8000 : 4000);
      },
      dismiss(id) {
        set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
      },
    }),
    {
      name: UI_SETTINGS,
      version: 1,
      storage: localSettings<RememberedUi>(LEGACY_UI_KEYS),
      partialize: (s) => ({ view: s.view, sort: s.sort, inspected: s.inspected, groupBy: s.groupBy }),
      // Version 0 is the per-setting keys: the same fields, which merge validates.
      migrate: (stored) => stored as RememberedUi,
      merge: (stored, current) => {
        if (!isRecord(stored)) return current;
        return {
          ...current,
          ...(isView(stored.view) && { view: stored.view }),
          ...(isSort(stored.sort) && { sort: stored.sort }),
          ...(isInspected(stored.inspected) && { inspected: stored.inspected }),
          ...(isGroupBy(stored.groupBy) && { groupBy: stored.groupBy }),
        };
      },
    },
  ),
);
