/**
 * The automatic bake's scheduling (electron/services/app/bake-task.ts): after a launch on a
 * plain base, with autoBake on, one bake task of that image on that host starts (a second
 * launch joins it); off, on a baked base, or after a failed bake, none. The provider's bake
 * is the injected collaborator: what a bake does on a host is the guest lane's
 * test/guest/bake.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { AppSettingsSchema } from '../../../shared/app-settings.js';
import { TaskService } from '../../../electron/services/tasks/task-service.js';
import {
  BAKE_TASK_KIND,
  type BakeBackend,
  autoBakeAfter,
  shouldAutoBake,
} from '../../../electron/services/app/bake-task.js';
import type { BakeOptions } from '../../../electron/services/provider/kvm/images/bake.js';

const plain = { host: 'h1', image: 'debian', proxy: 'web-1', base: { baked: false } };

function backend(
  bake: (
    image: string,
    host: string,
    options?: BakeOptions,
  ) => Promise<never> | ReturnType<BakeBackend['provider']['bake']>,
) {
  const calls: string[] = [];
  const b: BakeBackend = {
    config: {
      images: { debian: { url: 'file:///x.qcow2', sha256: 'a'.repeat(64), format: 'qcow2' } },
      hosts: [{ name: 'h1' } as BakeBackend['config']['hosts'][number]],
    },
    provider: {
      bake: (image, host, options) => {
        calls.push(`${image}@${host}`);
        return bake(image, host, options);
      },
    },
  };
  return { b, calls };
}

const tick = () => new Promise((r) => setTimeout(r, 10));

describe('autoBake', () => {
  it('is on by default in settings.json (absent = on)', () => {
    expect(shouldAutoBake(AppSettingsSchema.parse({}), plain)).toBe(true);
    expect(AppSettingsSchema.parse({ autoBake: false }).autoBake).toBe(false);
    expect(() => AppSettingsSchema.parse({ autoBake: 'yes' })).toThrow();
  });

  it('bakes after a launch on a plain base only, with the setting on, and not after a failed bake', () => {
    expect(shouldAutoBake({ autoBake: true }, plain)).toBe(true);
    expect(shouldAutoBake({ autoBake: false }, plain)).toBe(false);
    expect(shouldAutoBake({ autoBake: true }, { ...plain, base: { baked: true } })).toBe(false);
    expect(shouldAutoBake({ autoBake: true }, { host: 'h1', image: 'debian' })).toBe(false);
    expect(shouldAutoBake({ autoBake: true }, plain, true)).toBe(false);
  });

  it('starts one bake task in the background (a second launch joins it), shown as automatic', async () => {
    const tasks = new TaskService();
    let release!: () => void;
    const { b, calls } = backend(
      () =>
        new Promise(
          (resolve) =>
            (release = () =>
              resolve({
                host: 'h1',
                image: 'debian',
                volume: { name: 'egress-baked-x.qcow2', path: '/p', capacity: 1, allocation: 1 } as never,
                created: true,
                recipeHash: 'abc',
                ms: 5,
              })),
        ),
    );
    const first = await autoBakeAfter(b, tasks, plain, async () => ({ autoBake: true }));
    const second = await autoBakeAfter(b, tasks, { ...plain, proxy: 'web-2' }, async () => ({ autoBake: true }));
    expect(first).toBeDefined();
    expect(second).toBe(first);
    await tick();
    expect(calls).toEqual(['debian@h1']);
    const task = tasks.get(first!)!;
    expect(task.kind).toBe(BAKE_TASK_KIND);
    expect(task.title).toContain('automatic, after launching web-1 on a plain base');
    release();
    await tick();
    expect(tasks.get(first!)!.state).toBe('succeeded');
  });

  it('starts nothing with the setting off; after a failed bake, the next launch starts none', async () => {
    const tasks = new TaskService();
    const { b, calls } = backend(() =>
      Promise.reject(new Error('bake on h1 failed at step "install": not installed: tinyproxy')),
    );
    expect(await autoBakeAfter(b, tasks, plain, async () => ({ autoBake: false }))).toBeUndefined();
    expect(calls).toEqual([]);
    const id = await autoBakeAfter(b, tasks, plain, async () => ({ autoBake: true }));
    await tick();
    expect(tasks.get(id!)!.state).toBe('failed');
    expect(await autoBakeAfter(b, tasks, plain, async () => ({ autoBake: true }))).toBeUndefined();
    expect(calls).toEqual(['debian@h1']);
  });

  it('a settings file it cannot read means the default (on)', async () => {
    const tasks = new TaskService();
    const { b } = backend(() => new Promise(() => undefined));
    expect(
      await autoBakeAfter(b, tasks, plain, () => Promise.reject(new Error('settings.json: unexpected token'))),
    ).toBeDefined();
  });
});
