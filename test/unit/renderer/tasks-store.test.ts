/** The Tasks view's store (renderer/stores/tasks-store.ts) over a bridge of the test's making. */
import { beforeEach, describe, expect, it } from 'vitest';
import { isActive, sortedTasks, useTasksStore } from '../../../renderer/stores/tasks-store.js';
import { deferred, fakeBridge, named, task } from './fake-bridge.js';
import type { Task } from '../../../shared/tasks.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => useTasksStore.setState(useTasksStore.getInitialState(), true));

describe('tasks store', () => {
  it("an update seen while tasks:list is in flight is newer than the list's copy of it", async () => {
    const list = deferred<Task[]>();
    const b = fakeBridge({ 'tasks:list': () => list.promise });
    useTasksStore.getState().start();
    b.emit('task:update', task({ id: 't1', state: 'succeeded' }));
    list.resolve([task({ id: 't1', state: 'running' }), task({ id: 't0', state: 'failed' })]);
    await settle();
    const { tasks, loaded } = useTasksStore.getState();
    expect(loaded).toBe(true);
    expect(tasks.t1?.state).toBe('succeeded');
    expect(tasks.t0?.state).toBe('failed');
  });

  it('a refused cancel says so', async () => {
    const b = fakeBridge({ 'tasks:cancel': () => Promise.reject(named('TaskNotCancellableError', 'it has finished')) });
    await useTasksStore.getState().cancel('t1');
    expect(useTasksStore.getState().error).toBe('Could not cancel the task: it has finished');
    expect(b.calls).toEqual([{ channel: 'tasks:cancel', input: { id: 't1' } }]);
  });

  it('sorts newest first and counts queued and running tasks as active', () => {
    const tasks = {
      a: task({ id: 'a', created: '2026-12-02T10:00:00.000Z', state: 'queued' }),
      b: task({ id: 'b', created: '2026-12-02T11:00:00.000Z', state: 'succeeded' }),
      c: task({ id: 'c', created: '2026-12-02T09:00:00.000Z', state: 'running' }),
    };
    expect(sortedTasks(tasks).map((t) => t.id)).toEqual(['b', 'a', 'c']);
    expect(
      Object.values(tasks)
        .filter(isActive)
        .map((t) => t.id),
    ).toEqual(['a', 'c']);
  });
});
