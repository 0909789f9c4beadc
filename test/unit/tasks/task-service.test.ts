import { describe, expect, it } from 'vitest';
import { TaskService } from '../../../electron/services/tasks/task-service.js';
import type { Task } from '../../../shared/tasks.js';

/** A clock and timers the test moves by hand. */
function manualTime() {
  let now = 1_000_000;
  const timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const t = { at: now + ms, fn, live: true };
      timers.push(t);
      return { cancel: () => void (t.live = false) };
    },
    advance(ms: number) {
      now += ms;
      for (const t of timers)
        if (t.live && t.at <= now) {
          t.live = false;
          t.fn();
        }
    },
  };
}

function service(time = manualTime(), history?: number) {
  const updates: Task[] = [];
  const tasks = new TaskService({
    now: time.now,
    setTimer: time.setTimer,
    onUpdate: (t) => updates.push(t),
    ...(history !== undefined ? { history } : {}),
  });
  return { tasks, updates, time };
}

describe('TaskService', () => {
  it('runs a task through queued, running and succeeded, with steps and its result', async () => {
    const { tasks, updates } = service();
    const id = tasks.run(
      'Do it',
      async (ctx) => {
        ctx.step('one', 'first');
        ctx.stepDone('found x');
        ctx.step('two');
        return { answer: 42 };
      },
      { kind: 'images:pull', target: 'x' },
    );
    expect(tasks.get(id)!.state).toBe('queued');
    const task = await tasks.wait(id);
    expect(task).toMatchObject({
      id,
      title: 'Do it',
      kind: 'images:pull',
      target: 'x',
      state: 'succeeded',
      result: { answer: 42 },
      cancellable: false,
    });
    expect(task.steps).toEqual([
      { name: 'one', state: 'done', message: 'found x' },
      { name: 'two', state: 'done' },
    ]);
    expect(updates.map((u) => u.state)).toEqual(['queued', 'running', 'running', 'running', 'running', 'succeeded']);
    expect(task.started).toBeDefined();
    expect(task.finished).toBeDefined();
  });

  it('throttles progress to at most one update per 100 ms and sends the latest value last', async () => {
    const { tasks, updates, time } = service();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const id = tasks.run(
      'Download',
      async (ctx) => {
        ctx.step('download');
        for (let i = 1; i <= 1000; i++) {
          ctx.progress(i, 1000);
          if (i % 100 === 0) time.advance(30); // 1000 reports over 300 ms
        }
        await gate;
      },
      { kind: 'images:pull' },
    );
    await Promise.resolve();
    await Promise.resolve();
    const before = updates.length;
    release();
    await tasks.wait(id);
    const progress = updates.filter((u) => u.progress !== undefined);
    // 300 ms of reports: at most 4 progress updates, not 1000.
    expect(progress.length).toBeLessThanOrEqual(4);
    expect(progress.length).toBeGreaterThan(0);
    expect(updates.length).toBeLessThan(before + 10);
    // The final state carries the last value.
    expect(updates.at(-1)!.progress).toEqual({ done: 1000, total: 1000 });
  });

  it('cancel aborts the signal and ends the task cancelled', async () => {
    const { tasks } = service();
    const id = tasks.run(
      'Wait',
      (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
      { kind: 'images:pull' },
    );
    await Promise.resolve();
    expect(tasks.cancel(id)).toBe(true);
    const task = await tasks.wait(id);
    expect(task).toMatchObject({
      state: 'cancelled',
      error: { name: 'TaskCancelledError', message: 'Wait: cancelled' },
    });
    expect(tasks.cancel(id)).toBe(false);
  });

  it('a task that ignores the signal but finishes after a cancel still counts as cancelled', async () => {
    const { tasks } = service();
    const id = tasks.run(
      'Stubborn',
      async () => {
        await new Promise((r) => setTimeout(r, 5));
        return 'done anyway';
      },
      { kind: 'images:pull' },
    );
    tasks.cancel(id);
    expect((await tasks.wait(id)).state).toBe('cancelled');
  });

  it('refuses to cancel a task that is not cancellable', async () => {
    const { tasks } = service();
    const id = tasks.run('Delete', async () => 'ok', { kind: 'images:pull', cancellable: false });
    expect(tasks.cancel(id)).toBe(false);
    expect((await tasks.wait(id)).state).toBe('succeeded');
  });

  it('a failure keeps its name, message and step', async () => {
    const { tasks } = service();
    const id = tasks.run(
      'Fail',
      async () => {
        throw Object.assign(new Error('no room'), { name: 'PlacementError', step: 'place' });
      },
      { kind: 'images:pull' },
    );
    expect(await tasks.wait(id)).toMatchObject({
      state: 'failed',
      error: { name: 'PlacementError', message: 'no room', step: 'place' },
    });
  });

  it('keeps a bounded history of finished tasks', async () => {
    const { tasks } = service(manualTime(), 3);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(tasks.run(`t${i}`, async () => i, { kind: 'images:pull' }));
    await Promise.all(ids.map((id) => tasks.wait(id)));
    expect(tasks.list().map((t) => t.title)).toEqual(['t2', 't3', 't4']);
  });

  it('close cancels what is still running', async () => {
    const { tasks } = service();
    const id = tasks.run(
      'Long',
      (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
      { kind: 'images:pull' },
    );
    await Promise.resolve();
    await tasks.close();
    expect(tasks.get(id)!.state).toBe('cancelled');
  });
});
