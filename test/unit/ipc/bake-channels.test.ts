/**
 * Baking through the app's channels, on the in-process hypervisor of the app fixture:
 * with autoBake on, a launch on a plain base is followed by a bake task (automatic, in
 * tasks:list); cancelling it leaves the hosts as before the bake; images:bake refuses
 * unknown names before any task; images:list says "plain" until a baked base is there.
 * (That a bake finishes and its base serves a launch is test/guest/bake.test.ts, on a real guest.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ImageView } from '../../../shared/images-view.js';
import type { Task } from '../../../shared/tasks.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('channels: baking', () => {
  it('a launch on a plain base starts an automatic bake; cancelling it leaves the hosts as they were', async () => {
    app = appFixture({ autoBake: true });
    const fx = app.fx;
    const { taskId } = (await app.call('proxies:launch', { name: 'p1', host: 'edge-b' })) as { taskId: string };
    expect((await app.finished(taskId)).state).toBe('succeeded');
    const snapshotAfterLaunch = async (): Promise<Task | undefined> =>
      ((await app!.call('tasks:list')) as Task[]).find((t) => t.kind === 'images:bake');
    let bake: Task | undefined;
    for (let i = 0; i < 50 && !bake; i++) {
      bake = await snapshotAfterLaunch();
      if (!bake) await new Promise((r) => setTimeout(r, 20));
    }
    expect(bake?.title).toMatch(/^Bake image \S+ on edge-b \(automatic, after launching p1 on a plain base\)$/);
    expect(bake?.target).toMatch(/@edge-b$/);
    expect(await app.call('tasks:cancel', { id: bake!.id })).toEqual({ cancelled: true });
    const ended = await app.finished(bake!.id);
    expect(ended.state).toBe('cancelled');
    const after = fx.snapshot();
    expect(JSON.stringify(after)).not.toContain('egress-baking-');
    expect(JSON.stringify(after)).not.toContain('egress-baked-');
    const [img] = (await app.call('images:list')) as ImageView[];
    expect(img!.hosts?.find((h) => h.host === 'edge-b')?.base).toBe('plain');
  });

  it('images:bake refuses an unknown image or host before any task', async () => {
    app = appFixture();
    await expect(app.call('images:bake', { name: 'nope', host: 'edge-b' })).rejects.toThrow(/no image named "nope"/);
    const [img] = (await app.call('images:list')) as ImageView[];
    await expect(app.call('images:bake', { name: img!.name, host: 'nowhere' })).rejects.toThrow(
      /no host named "nowhere" \(known: edge-a, edge-b\)/,
    );
    expect(((await app.call('tasks:list')) as Task[]).filter((t) => t.kind === 'images:bake')).toEqual([]);
  });
});
