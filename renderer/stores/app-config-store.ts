/**
 * The app's config, as the renderer sees it (not the backend's ConfigStore, which writes
 * the file): the config file this app runs from, and the catalog derived from it
 * (machine types, images with their cache state). Filled by one call of each at start,
 * then kept by events: `config:changed` (every write, the app's own included) and the end
 * of a task that changes the images' cache or the hosts' base volumes (a pull, a bake).
 * Config writes go through {@link AppConfigStore.write}, which resolves once the store shows
 * what the write did, so a view never reloads by hand.
 */
import { create } from 'zustand';
import type { ImageView, MachineTypeView } from '../../shared/images-view.js';
import type { AppInfo, ConfigChanged, ConfigState, EgressApi } from '../../shared/ipc.js';
import type { Task, TaskKind } from '../../shared/tasks.js';
import { errorMessage } from '../format.js';
import { storeApi } from './store-api.js';
import { isActive } from './tasks-store.js';
import { useUiStore } from './ui-store.js';

/** Tasks whose end changes the catalog (the cache state, the hosts' base volumes) but no config. */
const CATALOG_TASKS: ReadonlySet<TaskKind> = new Set(['images:pull', 'images:bake']);

export interface AppConfigStore {
  info?: AppInfo;
  state?: ConfigState;
  error?: string | undefined;
  machineTypes: MachineTypeView[];
  images: ImageView[];
  catalogError?: string | undefined;
  load(): Promise<void>;
  refreshCatalog(): Promise<void>;
  /** Applies a `config:changed` event: the state, the catalog read again; an edit by hand is told in a toast. */
  changed(event: ConfigChanged): void;
  /** Follows `config:changed` and the end of catalog tasks; returns the unsubscribe. */
  start(): () => void;
  /**
   * Runs one config write (an import, a host or catalog edit) and resolves with its answer
   * once the store shows the result: the backend sends `config:changed` before the answer,
   * so this waits for the catalog read that event started; when no event was applied
   * (the store is not following), it reads the config itself.
   */
  write<T>(call: (api: EgressApi) => Promise<T>): Promise<T>;
}

/** How many config:changed events were applied, and the catalog read the latest one started. */
let applied = 0;
let catalogRead: Promise<void> = Promise.resolve();

/** The first problem of a config that does not load, with its line: what a person fixes first. */
export function configProblem(state: ConfigState): string {
  const issue = state.issues?.[0];
  if (!issue) return state.error ?? 'it cannot be read';
  const more = (state.issues?.length ?? 1) > 1 ? ` (and ${(state.issues?.length ?? 1) - 1} more, see Config)` : '';
  return `${issue.line !== undefined ? `line ${issue.line}: ` : ''}${issue.path}: ${issue.message}${more}`;
}

export const useAppConfigStore = create<AppConfigStore>((set, get) => ({
  machineTypes: [],
  images: [],
  async load() {
    try {
      const api = storeApi();
      const [info, state] = await Promise.all([api.app.info(), api.config.get()]);
      set({ info, state, error: undefined });
    } catch (err) {
      set({ error: errorMessage(err) });
      return;
    }
    await get().refreshCatalog();
  },
  async refreshCatalog() {
    try {
      const api = storeApi();
      const [machineTypes, images] = await Promise.all([api.machineTypes.list(), api.images.list()]);
      set({ machineTypes, images, catalogError: undefined });
    } catch (err) {
      set({ catalogError: errorMessage(err) });
    }
  },
  changed({ by, ...state }) {
    applied++;
    set({ state });
    // A broken file is not taken: the app keeps the last good config, and its catalog.
    if (state.config) catalogRead = get().refreshCatalog();
    if (by === 'app') return;
    if (state.config)
      useUiStore.getState().toast('The config file was changed outside the app; the new config is in use.', 'info');
    else
      useUiStore
        .getState()
        .toast(
          `The config file was changed and does not load: ${configProblem(state)}. The app keeps using the last good config.`,
          'error',
        );
  },
  start() {
    const api = storeApi();
    const offs = [
      api.on('config:changed', (event) => get().changed(event)),
      api.on('task:update', (t: Task) => {
        if (CATALOG_TASKS.has(t.kind) && !isActive(t)) void get().refreshCatalog();
      }),
    ];
    return () => offs.forEach((off) => off());
  },
  async write(call) {
    const seen = applied;
    const result = await call(storeApi());
    if (applied === seen) await get().load();
    else await catalogRead;
    return result;
  },
}));
