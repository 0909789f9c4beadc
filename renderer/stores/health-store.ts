/** Health per proxy (shared/health.ts), by proxy key (shared/proxy-key.ts): `proxies:health` once, then `proxy:health` events. */
import { create } from 'zustand';
import type { FleetHealth, ProxyHealth } from '../../shared/health.js';
import { type ProxyKey, proxyKey } from '../../shared/proxy-key.js';
import { storeApi } from './store-api.js';
import { syncStore } from './sync.js';

export interface HealthStore {
  health: Record<ProxyKey, ProxyHealth>;
  at: number;
  apply(figures: FleetHealth): void;
  start(): () => void;
}

export const useHealthStore = create<HealthStore>((set, get) => ({
  health: {},
  at: 0,
  apply(figures) {
    // Each host's probes report as they end: an answer older than what is shown changes nothing.
    if (figures.at < get().at) return;
    set({ at: figures.at, health: Object.fromEntries(figures.proxies.map((p) => [proxyKey(p.host, p.domain), p])) });
  },
  start() {
    const api = storeApi();
    return syncStore<FleetHealth>({
      subscribe: (apply) => [api.on('proxy:health', apply)],
      load: async () => get().apply(await api.proxies.health()),
      apply: (figures) => get().apply(figures),
      fail: () => undefined, // no figures: the column shows dashes, and the next event fills it
    });
  },
}));
