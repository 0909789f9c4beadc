/** The config and catalog the renderer shows (renderer/stores/app-config-store.ts). */
import { beforeEach, describe, expect, it } from 'vitest';
import { useAppConfigStore } from '../../../renderer/stores/app-config-store.js';
import type { AppInfo, ConfigState } from '../../../shared/ipc.js';
import { fakeBridge } from './fake-bridge.js';

const info: AppInfo = { name: 'egress-desk', version: '0.0.0-test', frontEnd: 'serve', dataDir: '/srv/test/data' };
const state: ConfigState = { path: '/srv/test/config.yaml', created: false };

beforeEach(() => useAppConfigStore.setState(useAppConfigStore.getInitialState(), true));

describe('app config store', () => {
  it('loads the app, the config and then the catalog', async () => {
    const b = fakeBridge({ 'app:info': () => info, 'config:get': () => state, 'machineTypes:list': () => [], 'images:list': () => [] });
    await useAppConfigStore.getState().load(b.api);
    expect(useAppConfigStore.getState()).toMatchObject({ info, state, error: undefined, catalogError: undefined });
    expect(b.calls.map((c) => c.channel).sort()).toEqual(['app:info', 'config:get', 'images:list', 'machineTypes:list']);
  });

  it('a config that cannot be read stops there; a catalog that cannot be listed says so on its own', async () => {
    const noConfig = fakeBridge({ 'app:info': () => info, 'config:get': () => Promise.reject(new Error('permission denied')) });
    await useAppConfigStore.getState().load(noConfig.api);
    expect(useAppConfigStore.getState().error).toBe('permission denied');
    expect(noConfig.calls.map((c) => c.channel)).not.toContain('images:list');
    const noCatalog = fakeBridge({ 'app:info': () => info, 'config:get': () => state, 'machineTypes:list': () => [], 'images:list': () => Promise.reject(new Error('cache unreadable')) });
    await useAppConfigStore.getState().load(noCatalog.api);
    expect(useAppConfigStore.getState()).toMatchObject({ error: undefined, state, catalogError: 'cache unreadable' });
  });
});
