/** Proxies: filled by `proxies:list`, kept fresh by `proxy:changed`. Keyed by host and domain. */
import { create } from 'zustand';
import type { ProxyChanged } from '../../shared/proxy-changed.js';
import type { FleetListingView, ProxyRecordView } from '../../shared/proxies.js';
import { type ProxyKey, proxyKey, recordKey } from '../../shared/proxy-key.js';
import { errorMessage } from '../format.js';
import { storeApi } from './store-api.js';
import { syncStore } from './sync.js';

export interface ProxiesStore {
  /** By proxy key (shared/proxy-key.ts). */
  proxies: Record<ProxyKey, ProxyRecordView>;
  hosts: FleetListingView['hosts'];
  /** This backend's user and workstation: whose proxies are "mine". */
  you?: FleetListingView['you'];
  loaded: boolean;
  error?: string | undefined;
  apply(change: ProxyChanged): void;
  start(): () => void;
}

export const useProxiesStore = create<ProxiesStore>((set, get) => ({
  proxies: {},
  hosts: [],
  loaded: false,
  apply(change) {
    const key = proxyKey(change.host, change.domain);
    set((s) => {
      if (change.removed) {
        // By its domain; by its name on that host only when no row has that domain: a removal
        // that could not name the domain still lands, and the old domain of a replaced proxy
        // goes without taking its replacement (same name, same host, other domain) along.
        const exact = key in s.proxies;
        const gone = (k: string, p: ProxyRecordView) =>
          k === key || (!exact && change.name !== undefined && p.host === change.host && p.name === change.name);
        const rest = Object.fromEntries(Object.entries(s.proxies).filter(([k, p]) => !gone(k, p)));
        return Object.keys(rest).length === Object.keys(s.proxies).length ? {} : { proxies: rest };
      }
      return { proxies: { ...s.proxies, [key]: change.proxy } };
    });
  },
  start() {
    const api = storeApi();
    return syncStore<ProxyChanged>({
      subscribe: (apply) => [api.on('proxy:changed', apply)],
      load: async () => {
        const listing = await api.proxies.list();
        set({
          proxies: Object.fromEntries(listing.proxies.map((p) => [recordKey(p), p])),
          hosts: listing.hosts,
          ...(listing.you ? { you: listing.you } : {}),
          loaded: true,
          error: undefined,
        });
      },
      apply: (c) => get().apply(c),
      fail: (err) => set({ loaded: true, error: errorMessage(err) }),
    });
  },
}));
