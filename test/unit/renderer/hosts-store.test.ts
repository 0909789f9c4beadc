/** The Hosts view's store (renderer/stores/hosts-store.ts) over a bridge of the test's making. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HOST_LOAD_INTERVAL_MS, useHostsStore } from '../../../renderer/stores/hosts-store.js';
import type { HostInfo, HostLoad } from '../../../shared/hosts.js';
import { fakeBridge, hostStatus, named } from './fake-bridge.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const facts: HostInfo = {
  hostname: 'hv-test',
  libvirtVersion: '1.0.0',
  hypervisor: 'QEMU',
  hypervisorVersion: '1.0.0',
  cpuModel: 'test',
  cpus: 2,
  memoryBytes: 2 ** 31,
  freeMemoryBytes: 2 ** 30,
  kvm: false,
  pools: [],
  networks: [],
  domainCount: 0,
};

beforeEach(() => useHostsStore.setState(useHostsStore.getInitialState(), true));
afterEach(() => vi.useRealTimers());

const load = (cpuBusy: number): HostLoad => ({
  name: 'local',
  at: 1,
  cpuBusy,
  cpuWindowMs: 5_000,
  cpus: 2,
  memoryBytes: 2 ** 31,
  freeMemoryBytes: 2 ** 30,
  availableMemoryBytes: 2 ** 30,
  pools: [],
});

describe("hosts store: a watched host's load", () => {
  it('asks at once and again after each answer, keeps the last figures, drops them on a failed ask, and stops when released', async () => {
    vi.useFakeTimers();
    let asked = 0;
    const b = fakeBridge({
      'hosts:load': () => {
        asked++;
        if (asked === 3) throw new Error('host gone');
        return load(asked / 10);
      },
    });
    const stop = useHostsStore.getState().watchLoad('local');
    await vi.advanceTimersByTimeAsync(0);
    expect(b.calls).toEqual([{ channel: 'hosts:load', input: { name: 'local' } }]);
    expect(useHostsStore.getState().loads.local?.cpuBusy).toBe(0.1);
    await vi.advanceTimersByTimeAsync(HOST_LOAD_INTERVAL_MS);
    expect(useHostsStore.getState().loads.local?.cpuBusy).toBe(0.2);
    await vi.advanceTimersByTimeAsync(HOST_LOAD_INTERVAL_MS);
    // The view falls back to the facts at connect rather than show stale figures as current.
    expect(useHostsStore.getState().loads.local).toBeUndefined();
    stop();
    await vi.advanceTimersByTimeAsync(HOST_LOAD_INTERVAL_MS * 3);
    expect(asked).toBe(3);
  });
});

describe('hosts store', () => {
  it('lists once, then follows host:status; a host that connects without facts is listed again for them', async () => {
    let listed = 0;
    const b = fakeBridge({
      'hosts:list': () => (++listed === 1 ? [hostStatus({ state: 'connecting' })] : [hostStatus({ info: facts })]),
    });
    const stop = useHostsStore.getState().start();
    await settle();
    expect(useHostsStore.getState()).toMatchObject({ loaded: true, hosts: [{ name: 'edge-a', state: 'connecting' }] });
    b.emit('host:status', hostStatus());
    await settle();
    expect(listed).toBe(2);
    expect(useHostsStore.getState().hosts).toEqual([hostStatus({ info: facts })]);
    stop();
    expect(b.listeners('host:status')).toBe(0);
  });

  it('keeps the facts last seen when a status without facts says it is still connected', () => {
    const s = useHostsStore.getState();
    s.upsert(hostStatus({ info: facts }));
    s.upsert(hostStatus({ message: 'probe answered' }));
    expect(useHostsStore.getState().hosts[0]).toMatchObject({ info: facts, message: 'probe answered' });
    s.upsert(hostStatus({ state: 'error', message: 'refused' }));
    expect(useHostsStore.getState().hosts[0]?.info).toBeUndefined();
  });

  it('replace drops the hosts the backend no longer has', () => {
    useHostsStore.getState().upsert(hostStatus({ name: 'edge-b' }));
    useHostsStore.getState().replace([hostStatus()]);
    expect(useHostsStore.getState().hosts.map((h) => h.name)).toEqual(['edge-a']);
  });

  it('a failed list says why, loaded', async () => {
    fakeBridge({ 'hosts:list': () => Promise.reject(new Error('config has no kvm block')) });
    useHostsStore.getState().start();
    await settle();
    expect(useHostsStore.getState()).toMatchObject({ loaded: true, error: 'config has no kvm block' });
  });

  it('trust: in flight, then the host as answered, or the error under that host', async () => {
    fakeBridge({ 'hosts:trust': ({ host }) => hostStatus({ name: host }) });
    const pending = useHostsStore.getState().trust('edge-a', 'SHA256:x');
    expect(useHostsStore.getState().trusting['edge-a']).toBe(true);
    await pending;
    expect(useHostsStore.getState()).toMatchObject({
      trusting: { 'edge-a': false },
      trustError: { 'edge-a': '' },
      hosts: [{ name: 'edge-a', state: 'connected' }],
    });
    fakeBridge({ 'hosts:trust': () => Promise.reject(named('HostKeyChangedError', 'the key changed')) });
    await useHostsStore.getState().trust('edge-a', 'SHA256:y');
    expect(useHostsStore.getState().trustError['edge-a']).toBe('the key changed');
  });

  it("unlock: a passphrase still asked for keeps the backend's reason; a refusal is shown", async () => {
    fakeBridge({
      'hosts:unlock': ({ host }) =>
        hostStatus({ name: host, state: 'auth-needed', needs: 'passphrase', message: 'wrong passphrase' }),
    });
    await useHostsStore.getState().unlock('edge-a', 'nope', false);
    expect(useHostsStore.getState()).toMatchObject({
      unlocking: { 'edge-a': false },
      unlockError: { 'edge-a': 'wrong passphrase' },
    });
    const right = fakeBridge({ 'hosts:unlock': ({ host }) => hostStatus({ name: host }) });
    await useHostsStore.getState().unlock('edge-a', 'right', true);
    expect(useHostsStore.getState()).toMatchObject({ unlockError: { 'edge-a': '' }, hosts: [{ state: 'connected' }] });
    expect(right.calls).toEqual([
      { channel: 'hosts:unlock', input: { host: 'edge-a', passphrase: 'right', remember: true } },
    ]);
  });
});
