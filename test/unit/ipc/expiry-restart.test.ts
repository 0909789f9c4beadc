/**
 * Expiry across an app restart (issue 16): the expiry is in the proxy's libvirt metadata,
 * not in the app, so an app closed before a proxy's time is up and a new one opened over
 * the same hosts deletes it when the time comes, by its own 30 s timer (never a sweep()
 * called by the test). A proxy without an expiry is never deleted, however long it runs.
 * Only setInterval and Date are faked: the in-memory hosts, tasks and files keep their real
 * timers and I/O.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { instanceId } from '../../../electron/services/provider/kvm/names.js';
import type { Task } from '../../../shared/tasks.js';
import { fixture } from '../provider/provider-fixture.js';
import { type AppFixture, appFixture } from './app-fixture.js';

const START = Date.parse('2026-12-04T12:00:00.000Z');
let apps: AppFixture[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'], now: START });
});

afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
  vi.useRealTimers();
});

function open(fx: ReturnType<typeof fixture>): AppFixture {
  const app = appFixture({ fx });
  apps.push(app);
  return app;
}

/** Polls by count, not by clock: waitFor's deadline reads Date, which is faked here. */
async function finishedTask(app: AppFixture, title: string): Promise<Task> {
  for (let i = 0; i < 250; i++) {
    const done = (await tasks(app)).find((t) => t.title === title && t.state !== 'running');
    if (done) return done;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no finished task "${title}" after 5 s: ${JSON.stringify((await tasks(app)).map((t) => t.title))}`);
}

async function tasks(app: AppFixture): Promise<Task[]> {
  return (await app.call('tasks:list')) as Task[];
}

describe('expiry across a restart', () => {
  it('an app opened after the first one closed deletes the proxy by its own timer once the expiry passes', async () => {
    const fx = fixture();
    const first = open(fx);
    const expiresAt = new Date(START + 5 * 60_000).toISOString();
    await fx.provider.launch({ name: 'temp', host: 'edge-a', expiresAt });
    await fx.provider.launch({ name: 'forever', host: 'edge-b' });
    await first.call('proxies:list');
    // Two sweeps of the first app, before the expiry: nothing is due.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await tasks(first)).toEqual([]);
    await first.close();
    apps = apps.filter((a) => a !== first);

    const second = open(fx);
    await second.call('proxies:list');
    // Still before the expiry: the new app's timer runs and leaves it.
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(await tasks(second)).toEqual([]);
    expect(fx.a.snapshot().domains).toEqual({ [instanceId('temp')]: 'running' });
    // Past the expiry and one more 30 s tick.
    await vi.advanceTimersByTimeAsync(2 * 60_000 + 30_000);
    const task = await finishedTask(second, 'Expire temp');
    expect(task).toMatchObject({ state: 'succeeded', kind: 'proxies:delete', target: 'temp', result: { expiresAt } });
    expect(fx.a.snapshot().domains).toEqual({});
    expect(fx.b.snapshot().domains).toEqual({ [instanceId('forever')]: 'running' });
    // Later ticks start nothing more.
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect((await tasks(second)).map((t) => t.title)).toEqual(['Expire temp']);
  });

  it('a proxy without an expiry is never deleted, across a restart and days of ticks', async () => {
    const fx = fixture();
    const first = open(fx);
    await fx.provider.launch({ name: 'forever', host: 'edge-a' });
    await first.call('proxies:list');
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    await first.close();
    apps = apps.filter((a) => a !== first);

    const second = open(fx);
    await second.call('proxies:list');
    await vi.advanceTimersByTimeAsync(3 * 24 * 60 * 60_000);
    expect(await tasks(second)).toEqual([]);
    expect(fx.a.snapshot().domains).toEqual({ [instanceId('forever')]: 'running' });
  });
});
