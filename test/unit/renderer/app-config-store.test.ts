/** The config and catalog the renderer shows (renderer/stores/app-config-store.ts): loaded, kept by events, and written through. */
import { beforeEach, describe, expect, it } from 'vitest';
import { useAppConfigStore } from '../../../renderer/stores/app-config-store.js';
import type { AppInfo, ConfigState } from '../../../shared/ipc.js';
import { useUiStore } from '../../../renderer/stores/ui-store.js';
import { deferred, fakeBridge, named, task } from './fake-bridge.js';

const info: AppInfo = { name: 'egress-desk', version: '0.0.0-test', frontEnd: 'serve', dataDir: '/srv/test/data' };
const state: ConfigState = { path: '/srv/test/config.yaml', created: false };

beforeEach(() => useAppConfigStore.setState(useAppConfigStore.getInitialState(), true));

describe('app config store', () => {
  it('loads the app, the config and then the catalog', async () => {
    const b = fakeBridge({
      'app:info': () => info,
      'config:get': () => state,
      'machineTypes:list': () => [],
      'images:list': () => [],
    });
    await useAppConfigStore.getState().load();
    expect(useAppConfigStore.getState()).toMatchObject({ info, state, error: undefined, catalogError: undefined });
    expect(b.calls.map((c) => c.channel).sort()).toEqual([
      'app:info',
      'config:get',
      'images:list',
      'machineTypes:list',
    ]);
  });

  it('a config that cannot be read stops there; a catalog that cannot be listed says so on its own', async () => {
    const noConfig = fakeBridge({
      'app:info': () => info,
      'config:get': () => Promise.reject(new Error('permission denied')),
    });
    await useAppConfigStore.getState().load();
    expect(useAppConfigStore.getState().error).toBe('permission denied');
    expect(noConfig.calls.map((c) => c.channel)).not.toContain('images:list');
    fakeBridge({
      'app:info': () => info,
      'config:get': () => state,
      'machineTypes:list': () => [],
      'images:list': () => Promise.reject(new Error('cache unreadable')),
    });
    await useAppConfigStore.getState().load();
    expect(useAppConfigStore.getState()).toMatchObject({ error: undefined, state, catalogError: 'cache unreadable' });
  });
});

describe('app config store: follows its events, and writes resolve once it shows them', () => {
  const config = { type: 'kvm' as const };
  const catalogCalls = (b: { calls: { channel: string }[] }) =>
    b.calls.filter((c) => c.channel === 'images:list').length;
  beforeEach(() => useUiStore.setState({ toasts: [] }));

  it('config:changed sets the state and reads the catalog again; only an edit by hand is told', async () => {
    const b = fakeBridge({ 'machineTypes:list': () => [], 'images:list': () => [] });
    const stop = useAppConfigStore.getState().start();
    b.emit('config:changed', { ...state, config, by: 'app' });
    expect(useAppConfigStore.getState().state).toEqual({ ...state, config });
    expect(catalogCalls(b)).toBe(1);
    expect(useUiStore.getState().toasts).toEqual([]);
    b.emit('config:changed', { ...state, config, by: 'file' });
    expect(useUiStore.getState().toasts.map((t) => t.kind)).toEqual(['info']);
    // A broken file: said, with its first problem; the catalog of the last good config stays.
    b.emit('config:changed', {
      ...state,
      issues: [{ path: 'kvm.hosts', message: 'is required', line: 3 }],
      lastGood: true,
      by: 'file',
    });
    expect(catalogCalls(b)).toBe(2);
    expect(useUiStore.getState().toasts.at(-1)).toMatchObject({
      kind: 'error',
      text: expect.stringContaining('line 3: kvm.hosts: is required'),
    });
    stop();
    expect(b.listeners('config:changed')).toBe(0);
  });

  it('the end of a pull or a bake reads the catalog again; a running one or a launch does not', () => {
    const b = fakeBridge({ 'machineTypes:list': () => [], 'images:list': () => [] });
    const stop = useAppConfigStore.getState().start();
    b.emit('task:update', task({ kind: 'images:pull', state: 'running' }));
    b.emit('task:update', task({ kind: 'proxies:launch', state: 'succeeded' }));
    expect(catalogCalls(b)).toBe(0);
    b.emit('task:update', task({ kind: 'images:pull', state: 'failed' }));
    b.emit('task:update', task({ kind: 'images:bake', state: 'succeeded' }));
    expect(catalogCalls(b)).toBe(2);
    stop();
  });

  it('write: the event comes before the answer, so it waits for that catalog read and reads nothing more', async () => {
    const images = deferred<[]>();
    const b = fakeBridge({
      'machineTypes:list': () => [],
      'images:list': () => images.promise,
      'machineTypes:save': () => {
        b.emit('config:changed', { ...state, config, by: 'app' });
        return { path: state.path };
      },
    });
    const stop = useAppConfigStore.getState().start();
    let done = false;
    const writing = useAppConfigStore
      .getState()
      .write((api) => api.machineTypes.save({ name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 }))
      .then((answer) => ((done = true), answer));
    await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(false); // the catalog is still being read
    images.resolve([]);
    expect(await writing).toEqual({ path: state.path });
    expect(b.calls.map((c) => c.channel)).toEqual(['machineTypes:save', 'machineTypes:list', 'images:list']);
    stop();
  });

  it('write: when no event was applied (the store does not follow), it reads the config itself', async () => {
    const b = fakeBridge({
      'app:info': () => info,
      'config:get': () => ({ ...state, config }),
      'machineTypes:list': () => [],
      'images:list': () => [],
      'defaults:set': () => ({ path: state.path }),
    });
    await useAppConfigStore.getState().write((api) => api.defaults.set({ image: 'debian-12' }));
    expect(b.calls.map((c) => c.channel).sort()).toEqual([
      'app:info',
      'config:get',
      'defaults:set',
      'images:list',
      'machineTypes:list',
    ]);
    expect(useAppConfigStore.getState().state?.config).toEqual(config);
  });

  it('a refused write rejects and reads nothing', async () => {
    const b = fakeBridge({ 'defaults:set': () => Promise.reject(named('ConfigBusyError', '1 task is running')) });
    await expect(useAppConfigStore.getState().write((api) => api.defaults.set({ image: 'x' }))).rejects.toThrow(
      '1 task is running',
    );
    expect(b.calls.map((c) => c.channel)).toEqual(['defaults:set']);
  });
});
