/**
 * What re-renders the Proxies table (renderer/stores/slices.ts): a component that reads
 * `useStore(useShallow(slice))` re-renders exactly when the slice's fields change (by
 * Object.is), which `renders` counts the same way over the real stores. A toast or a
 * task's progress must re-render neither the frame nor the table above
 * 1,000 rows; a changed row or sort must.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoreApi, UseBoundStore } from 'zustand';
import { shallow } from 'zustand/shallow';
import { useProxiesStore } from '../../../renderer/stores/proxies-store.js';
import { frameUi, inspecting, runningTasks, tableProxies, tableUi } from '../../../renderer/stores/slices.js';
import { useTasksStore } from '../../../renderer/stores/tasks-store.js';
import { useUiStore } from '../../../renderer/stores/ui-store.js';
import { proxyRecord, task } from './fake-bridge.js';

/** How many times a component reading `slice` through useShallow would re-render while `act` runs. */
function renders<S, T>(store: UseBoundStore<StoreApi<S>>, slice: (s: S) => T, act: () => void): number {
  let last = slice(store.getState());
  let count = 0;
  const off = store.subscribe((state) => {
    const next = slice(state);
    if (!shallow(last, next)) count++;
    last = next;
  });
  try {
    act();
  } finally {
    off();
  }
  return count;
}

const running = (id: string, done: number) =>
  task({ id, step: 'boot', steps: [{ name: 'boot', state: 'running' }], progress: { done, total: 100 } });
const proxy = proxyRecord();

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the Proxies table and the frame above it', () => {
  it('do not re-render for a toast or its dismissal (a whole-store read would)', () => {
    const toastAndGo = () => {
      useUiStore.getState().toast('Starting web-1 (see Tasks)');
      vi.runAllTimers();
    };
    expect(renders(useUiStore, tableUi, toastAndGo)).toBe(0);
    expect(renders(useUiStore, frameUi, toastAndGo)).toBe(0);
    // The control: the same act seen by a component that reads the whole store.
    expect(renders(useUiStore, (s) => s, toastAndGo)).toBe(2);
  });

  it("do not re-render for a running task's progress, only for a change in how many run", () => {
    useTasksStore.getState().upsert(running('t1', 10));
    expect(renders(useTasksStore, runningTasks, () => useTasksStore.getState().upsert(running('t1', 50)))).toBe(0);
    expect(renders(useTasksStore, runningTasks, () => useTasksStore.getState().upsert(running('t2', 0)))).toBe(1);
  });

  it('re-render when a row or the sort changes', () => {
    expect(
      renders(useProxiesStore, tableProxies, () =>
        useProxiesStore
          .getState()
          .apply({ host: 'edge-a', domain: proxy.id, name: proxy.name, event: 'STARTED', removed: false, proxy }),
      ),
    ).toBe(1);
    expect(renders(useUiStore, tableUi, () => useUiStore.getState().setSort({ key: 'age', dir: 'desc' }))).toBe(1);
  });

  it('follow the inspector only for whether it is open and where focus returns', () => {
    expect(renders(useUiStore, inspecting, () => useUiStore.getState().inspect('web-1'))).toBe(1);
    expect(renders(useUiStore, inspecting, () => useUiStore.getState().setInspectorTab('xml'))).toBe(0);
    expect(renders(useUiStore, tableUi, () => useUiStore.getState().setInspectorTab('seed'))).toBe(0);
    expect(renders(useUiStore, tableUi, () => useUiStore.getState().closeInspector())).toBe(1);
  });
});
