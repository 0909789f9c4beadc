/** Hosts: filled by `hosts:list`, kept fresh by `host:status`; each shown host's load refreshed by `hosts:load` while the Hosts view watches it. */
import { create } from 'zustand';
import type { HostLoad, HostStatus } from '../../shared/hosts.js';
import { errorMessage } from '../format.js';
import { storeApi } from './store-api.js';
import { syncStore } from './sync.js';

export interface HostsStore {
  hosts: HostStatus[];
  loaded: boolean;
  error?: string | undefined;
  /** Host names whose trust call is in flight, and the last trust error per host. */
  trusting: Record<string, boolean>;
  trustError: Record<string, string>;
  /** Host names whose passphrase is being tried, and the last unlock problem per host (a wrong passphrase, a store that refused). */
  unlocking: Record<string, boolean>;
  unlockError: Record<string, string>;
  /** By host: its load as last asked (while watched; a failed ask drops it, and the view falls back to the facts at connect). */
  loads: Record<string, HostLoad>;
  /** Asks the host's load now and every {@link HOST_LOAD_INTERVAL_MS} until the returned stop is called. */
  watchLoad(host: string): () => void;
  upsert(host: HostStatus): void;
  /** After a host edit: the hosts as the backend has them now (removed ones go). */
  replace(hosts: HostStatus[]): void;
  unlock(host: string, passphrase: string, remember: boolean): Promise<void>;
  refresh(): Promise<void>;
  /**
   * After a config change: the hosts the backend lists now, new ones added and removed ones
   * gone. A known host keeps the status it has: `host:status` owns that, and a listing asked
   * before a status event can answer after it.
   */
  relist(): Promise<void>;
  /** Follows `host:status`, and `config:changed` (hosts added, edited or removed, here or by hand); returns the unsubscribe. */
  start(): () => void;
  trust(host: string, fingerprint: string): Promise<void>;
}

/** How often a watched host's load is asked: the stats cadence of a watched window (5 s). */
export const HOST_LOAD_INTERVAL_MS = 5_000;

export const useHostsStore = create<HostsStore>((set, get) => ({
  hosts: [],
  loads: {},
  watchLoad(host) {
    const api = storeApi();
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      try {
        const load = await api.hosts.load({ name: host });
        if (!stopped) set((s) => ({ loads: { ...s.loads, [host]: load } }));
      } catch {
        // The card still has the facts from the connection; the next ask may succeed.
        if (!stopped)
          set((s) => ({ loads: Object.fromEntries(Object.entries(s.loads).filter(([name]) => name !== host)) }));
      }
      // The next ask after this one answered: a slow host never has two in flight.
      if (!stopped) timer = setTimeout(() => void ask(), HOST_LOAD_INTERVAL_MS);
    };
    void ask();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  },
  loaded: false,
  trusting: {},
  trustError: {},
  unlocking: {},
  unlockError: {},
  replace(hosts) {
    set({ hosts: [] });
    for (const h of hosts) get().upsert(h);
  },
  async unlock(host, passphrase, remember) {
    set((s) => ({ unlocking: { ...s.unlocking, [host]: true }, unlockError: { ...s.unlockError, [host]: '' } }));
    try {
      const status = await storeApi().hosts.unlock({ host, passphrase, remember });
      get().upsert(status);
      // Still asking: the backend said why (a wrong passphrase).
      if (status.needs === 'passphrase')
        set((s) => ({
          unlockError: { ...s.unlockError, [host]: status.message ?? 'the passphrase did not unlock the key' },
        }));
    } catch (err) {
      set((s) => ({ unlockError: { ...s.unlockError, [host]: errorMessage(err) } }));
    } finally {
      set((s) => ({ unlocking: { ...s.unlocking, [host]: false } }));
    }
  },
  upsert(host) {
    set((s) => {
      const i = s.hosts.findIndex((h) => h.name === host.name);
      if (i < 0) return { hosts: [...s.hosts, host] };
      const previous = s.hosts[i]!;
      // A status change without facts keeps the facts last seen while it stays connected.
      const merged =
        !host.info && host.state === 'connected' && previous.info ? { ...host, info: previous.info } : host;
      const hosts = s.hosts.slice();
      hosts[i] = merged;
      return { hosts };
    });
  },
  async refresh() {
    try {
      for (const h of await storeApi().hosts.list()) get().upsert(h);
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  async relist() {
    try {
      const listed = await storeApi().hosts.list();
      set((s) => {
        const known = new Map(s.hosts.map((h) => [h.name, h]));
        return { hosts: listed.map((h) => known.get(h.name) ?? h), error: undefined };
      });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  start() {
    const api = storeApi();
    const offConfig = api.on('config:changed', (c) => {
      if (c.config) void get().relist();
    });
    const offStatus = syncStore<HostStatus>({
      subscribe: (apply) => [api.on('host:status', apply)],
      load: async () => set({ hosts: await api.hosts.list(), loaded: true, error: undefined }),
      apply: (h) => {
        const known = get().hosts.find((x) => x.name === h.name);
        get().upsert(h);
        // A host that just connected: its facts come with hosts:list (one call per connection, not a poll).
        if (h.state === 'connected' && !h.info && !known?.info) void get().refresh();
      },
      fail: (err) => set({ loaded: true, error: errorMessage(err) }),
    });
    return () => {
      offConfig();
      offStatus();
    };
  },
  async trust(host, fingerprint) {
    set((s) => ({ trusting: { ...s.trusting, [host]: true }, trustError: { ...s.trustError, [host]: '' } }));
    try {
      get().upsert(await storeApi().hosts.trust({ host, fingerprint }));
    } catch (err) {
      set((s) => ({ trustError: { ...s.trustError, [host]: errorMessage(err) } }));
    } finally {
      set((s) => ({ trusting: { ...s.trusting, [host]: false } }));
    }
  },
}));
