/**
 * Tasks: filled by `tasks:list` (so a reloaded window gets every task back), kept fresh by
 * `task:update`. An update replaces the task it names.
 */
import { create } from 'zustand';
import type { Task } from '../../shared/tasks.js';
import { errorMessage } from '../format.js';
import { storeApi } from './store-api.js';
import { syncStore } from './sync.js';

export interface TasksStore {
  tasks: Record<string, Task>;
  loaded: boolean;
  error?: string | undefined;
  upsert(task: Task): void;
  start(): () => void;
  cancel(id: string): Promise<void>;
}

export const useTasksStore = create<TasksStore>((set, get) => ({
  tasks: {},
  loaded: false,
  upsert(task) {
    set((s) => ({ tasks: { ...s.tasks, [task.id]: task } }));
  },
  start() {
    const api = storeApi();
    return syncStore<Task>({
      subscribe: (apply) => [api.on('task:update', apply)],
      load: async () => {
        const list = await api.tasks.list();
        // Updates already seen (a launch started before the answer) stay as they are.
        set((s) => ({
          tasks: { ...Object.fromEntries(list.map((t) => [t.id, t])), ...s.tasks },
          loaded: true,
          error: undefined,
        }));
      },
      apply: (t) => get().upsert(t),
      fail: (err) => set({ loaded: true, error: errorMessage(err) }),
    });
  },
  async cancel(id) {
    try {
      await storeApi().tasks.cancel({ id });
    } catch (err) {
      set({ error: `Could not cancel the task: ${errorMessage(err)}` });
    }
  },
}));

/** Newest first. */
export function sortedTasks(tasks: Record<string, Task>): Task[] {
  return Object.values(tasks).sort((a, b) => b.created.localeCompare(a.created));
}

export const isActive = (t: Task): boolean => t.state === 'queued' || t.state === 'running';

/** Resolves with the task once it has ended, as the store shows it (fed by task:update): at once when it already has. */
export function taskEnded(id: string): Promise<Task> {
  return new Promise((resolve) => {
    const check = (tasks: Record<string, Task>): boolean => {
      const t = tasks[id];
      if (!t || isActive(t)) return false;
      resolve(t);
      return true;
    };
    if (check(useTasksStore.getState().tasks)) return;
    const stop = useTasksStore.subscribe((s) => {
      if (check(s.tasks)) stop();
    });
  });
}
