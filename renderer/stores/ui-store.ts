/**
 * The window's own state: the current view and the proxies' sort (both remembered between
 * starts, in localStorage through `persist`), the Launch dialog, the import draft, toasts.
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { isRecord, localSettings } from './local-settings.js';

export const VIEWS = ['proxies', 'hosts', 'catalog', 'config', 'tasks'] as const;
export type View = (typeof VIEWS)[number];
export const VIEW_LABELS: Record<View, string> = { proxies: 'Proxies', hosts: 'Hosts', catalog: 'Images & machine types', config: 'Config', tasks: 'Tasks' };

export const SORT_KEYS = ['state', 'name', 'host', 'address', 'port', 'machineType', 'image', 'age'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export interface Sort {
  key: SortKey;
  dir: 'asc' | 'desc';
}

const isView = (v: unknown): v is View => typeof v === 'string' && (VIEWS as readonly string[]).includes(v);
const isSort = (v: unknown): v is Sort =>
  typeof v === 'object' && v !== null && (SORT_KEYS as readonly unknown[]).includes((v as Sort).key) && ((v as Sort).dir === 'asc' || (v as Sort).dir === 'desc');

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
  importDraft?: ImportDraft;
  sort: Sort;
  launchOpen: boolean;
  toasts: Toast[];
  setView(view: View): void;
  setSort(sort: Sort): void;
  setLaunchOpen(open: boolean): void;
  /** Shows the Config view with this text in its import box, previewed; undefined once taken. */
  setImportDraft(draft: ImportDraft | undefined): void;
  toast(text: string, kind?: Toast['kind']): void;
  dismiss(id: number): void;
}

/** What is remembered between starts. */
type RememberedUi = Pick<UiStore, 'view' | 'sort'>;

/** The localStorage key, and the keys each setting had before `persist` (read once, then removed). */
export const UI_SETTINGS = 'egress-desk.ui';
const LEGACY_UI_KEYS: Record<string, keyof RememberedUi> = { 'egress-desk.view': 'view', 'egress-desk.proxies.sort': 'sort' };

let nextToast = 1;

export const useUiStore = create<UiStore>()(
  persist<UiStore, [], [], RememberedUi>(
    (set, get) => ({
      view: 'proxies',
      sort: { key: 'name', dir: 'asc' },
      launchOpen: false,
      toasts: [],
      setView(view) {
        set({ view });
      },
      setSort(sort) {
        set({ sort });
      },
      setLaunchOpen(launchOpen) {
        set({ launchOpen });
      },
      setImportDraft(importDraft) {
        if (importDraft) get().setView('config');
        set({ importDraft });
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
      partialize: (s) => ({ view: s.view, sort: s.sort }),
      // Version 0 is the per-setting keys: the same fields, which merge validates.
      migrate: (stored) => stored as RememberedUi,
      merge: (stored, current) => {
        if (!isRecord(stored)) return current;
        return { ...current, ...(isView(stored.view) && { view: stored.view }), ...(isSort(stored.sort) && { sort: stored.sort }) };
      },
    },
  ),
);
