/**
 * The slices of the stores that the app frame and the Proxies table read, named so that a
 * unit test (test/unit/renderer/render-slices.test.ts) can hold them to what they promise:
 * a toast, a task update or a host status changes none of them, so the table of up to
 * 1,000 rows does not re-render for it. Components read them through `useShallow`, which
 * re-renders only when a field of the slice changes (by `Object.is`).
 */
import { isActive, type TasksStore } from './tasks-store.js';
import type { AppConfigStore } from './app-config-store.js';
import type { ProxiesStore } from './proxies-store.js';
import type { UiStore } from './ui-store.js';

/** The frame's header and error banner. */
export const frameConfig = (s: AppConfigStore) => ({ info: s.info, state: s.state, error: s.error });

/** The frame's sidebar and Launch dialog; the toasts are read by the Toasts component alone. */
export const frameUi = (s: UiStore) => ({
  view: s.view,
  setView: s.setView,
  launchOpen: s.launchOpen,
  setLaunchOpen: s.setLaunchOpen,
});

/** The sidebar's count of running tasks: a number, so a task's progress re-renders nothing. */
export const runningTasks = (s: TasksStore): number => Object.values(s.tasks).filter(isActive).length;

/** The Proxies view: whether the inspector covers the table. */
export const inspecting = (s: UiStore): boolean => s.inspected !== null;

/** The table's rows. */
export const tableProxies = (s: ProxiesStore) => ({ proxies: s.proxies, loaded: s.loaded, error: s.error, you: s.you });

/** The table's sort, the row to give the focus back to (after the inspector), and the actions it calls. */
export const tableUi = (s: UiStore) => ({
  sort: s.sort,
  groupBy: s.groupBy,
  setGroupBy: s.setGroupBy,
  returnTo: s.returnTo,
  setSort: s.setSort,
  inspect: s.inspect,
  setLaunchOpen: s.setLaunchOpen,
  toast: s.toast,
});
