/** The config store: filled by one call at start; later issues keep it fresh with events. */
import { create } from 'zustand';
import type { AppInfo, ConfigState, EgressBridge } from '../shared/ipc.js';

interface ConfigStore {
  info?: AppInfo;
  state?: ConfigState;
  error?: string;
  load(api: EgressBridge): Promise<void>;
}

export const useConfigStore = create<ConfigStore>((set) => ({
  async load(api) {
    try {
      const [info, state] = await Promise.all([api.app.info(), api.config.get()]);
      set({ info, state, error: undefined });
    } catch (err) {
      set({ error: err instanceof Error ? err.message : String(err) });
    }
  },
}));
