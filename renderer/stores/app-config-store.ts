/**
 * The app's config, as the renderer sees it (not the backend's ConfigStore, which writes
 * the file): the config file this app runs from, and the catalog derived from it
 * (machine types, images with their cache state). Filled by one call of each at start.
 * There is no config event in the contract yet: the catalog is re-read after a task that
 * may change it (an image pull) finishes, through `refreshCatalog`.
 */
import { create } from 'zustand';
import type { ImageView, MachineTypeView } from '../../shared/images-view.js';
import type { AppInfo, ConfigState, EgressApi } from '../../shared/ipc.js';
import { errorMessage } from '../format.js';

export interface AppConfigStore {
  info?: AppInfo;
  state?: ConfigState;
  error?: string;
  machineTypes: MachineTypeView[];
  images: ImageView[];
  catalogError?: string;
  load(api: EgressApi): Promise<void>;
  refreshCatalog(api: EgressApi): Promise<void>;
}

export const useAppConfigStore = create<AppConfigStore>((set, get) => ({
  machineTypes: [],
  images: [],
  async load(api) {
    try {
      const [info, state] = await Promise.all([api.app.info(), api.config.get()]);
      set({ info, state, error: undefined });
    } catch (err) {
      set({ error: errorMessage(err) });
      return;
    }
    await get().refreshCatalog(api);
  },
  async refreshCatalog(api) {
    try {
      const [machineTypes, images] = await Promise.all([api.machineTypes.list(), api.images.list()]);
      set({ machineTypes, images, catalogError: undefined });
    } catch (err) {
      set({ catalogError: errorMessage(err) });
    }
  },
}));
