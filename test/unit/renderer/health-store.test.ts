/** Health in the renderer (renderer/stores/health-store.ts): listed once, then events; an older answer changes nothing. */
import { beforeEach, describe, expect, it } from 'vitest';
import { useHealthStore } from '../../../renderer/stores/health-store.js';
import type { FleetHealth } from '../../../shared/health.js';
import { proxyKey } from '../../../shared/proxy-key.js';
import { fakeBridge } from './fake-bridge.js';

const figures = (at: number, state: 'healthy' | 'failing'): FleetHealth => ({
  at,
  proxies: [{ host: 'edge-a', domain: 'ep-web', name: 'web', state, since: at }],
});

const WEB = proxyKey('edge-a', 'ep-web');

beforeEach(() => useHealthStore.setState({ health: {}, at: 0 }));

describe('health store', () => {
  it('takes proxies:health, then each proxy:health; an answer older than the one shown is dropped', async () => {
    const bridge = fakeBridge({ 'proxies:health': () => figures(10, 'healthy') });
    const stop = useHealthStore.getState().start();
    await new Promise((r) => setTimeout(r, 0));
    expect(useHealthStore.getState().health[WEB]).toMatchObject({ state: 'healthy' });
    bridge.emit('proxy:health', figures(40, 'failing'));
    expect(useHealthStore.getState().health[WEB]).toMatchObject({ state: 'failing', since: 40 });
    bridge.emit('proxy:health', figures(20, 'healthy'));
    expect(useHealthStore.getState().health[WEB]!.state).toBe('failing');
    stop();
    expect(bridge.listeners('proxy:health')).toBe(0);
  });
});
