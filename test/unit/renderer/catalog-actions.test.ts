/**
 * Learning an image's SHA-256 (renderer/stores/catalog-actions.ts): the Add image form's
 * Save for an image published with a SHA-512 only starts `images:verifySha512` and waits
 * for the task's end in the tasks store (taskEnded), instead of the view reading the store.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { learnSha256 } from '../../../renderer/stores/catalog-actions.js';
import { taskEnded, useTasksStore } from '../../../renderer/stores/tasks-store.js';
import { fakeBridge, task } from './fake-bridge.js';

const input = { name: 'deb', url: 'https://example.com/d.qcow2', sha512: 'c'.repeat(128), format: 'qcow2' as const };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  useTasksStore.setState(useTasksStore.getInitialState(), true);
});

describe('learnSha256', () => {
  it('tells the task it started, and answers the SHA-256 once the tasks store shows it succeeded', async () => {
    const b = fakeBridge({ 'images:verifySha512': () => ({ taskId: 't-1' }) });
    const started: string[] = [];
    const learnt = learnSha256(input, (id) => started.push(id));
    await settle();
    expect(b.calls).toEqual([{ channel: 'images:verifySha512', input }]);
    expect(started).toEqual(['t-1']);
    useTasksStore.getState().upsert(task({ id: 't-1', state: 'running' }));
    useTasksStore
      .getState()
      .upsert(task({ id: 't-1', state: 'succeeded', result: { name: 'deb', sha256: 'a'.repeat(64), sizeBytes: 10 } }));
    await expect(learnt).resolves.toBe('a'.repeat(64));
  });

  it('rejects with what the task said when it failed', async () => {
    fakeBridge({ 'images:verifySha512': () => ({ taskId: 't-2' }) });
    const learnt = learnSha256(input, () => undefined);
    await settle();
    useTasksStore.getState().upsert(
      task({
        id: 't-2',
        state: 'failed',
        error: { name: 'ImageCacheError', message: 'has sha512 x but y was expected' },
      }),
    );
    await expect(learnt).rejects.toThrow('has sha512 x but y was expected');
  });
});

describe('taskEnded', () => {
  it('answers at once for a task that has ended, else once it ends (not while it is queued or running)', async () => {
    useTasksStore.getState().upsert(task({ id: 'done', state: 'cancelled' }));
    await expect(taskEnded('done')).resolves.toMatchObject({ state: 'cancelled' });
    const ending = taskEnded('later');
    useTasksStore.getState().upsert(task({ id: 'later', state: 'queued' }));
    useTasksStore.getState().upsert(task({ id: 'later', state: 'succeeded' }));
    await expect(ending).resolves.toMatchObject({ id: 'later', state: 'succeeded' });
  });
});
