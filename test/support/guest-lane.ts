/**
 * What every guest-lane file set up and tore down for itself, registered once: a client on
 * the test libvirtd, the file's proxies removed before its tests (what an interrupted run
 * left) and after them, volumes it names removed at the end, and the processes it started
 * (servers in the test namespace) stopped.
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { removeProxy, removeVolumes, systemClient } from './libvirt.js';
import { hypervisorState } from './provider.js';

type HypervisorState = Awaited<ReturnType<typeof hypervisorState>>;

/** A guest-lane file's client and cleanup (see {@link useGuestLane}). */
export interface GuestLane {
  /** The client on the test libvirtd, inside a test (made before each). */
  readonly client: LibvirtClient;
  /** Stops `child` when the file ends; returns it. */
  stopAtEnd<T extends { kill(): unknown } | undefined>(child: T): T;
  /** The test pool's volumes and the daemon's domains now. */
  state(): Promise<HypervisorState>;
  /** Expects the domains of `before` and its volumes plus `kept` (a base volume the launch uploaded and keeps for later runs). */
  expectAsBefore(before: HypervisorState, kept?: readonly string[]): Promise<void>;
}

/**
 * Call at the top of a test file, before its own hooks: its beforeAll then runs first (what
 * an earlier run left is removed) and its afterAll last (after the file's own cleanup).
 * `proxies`: the names the file launches; `volumes`: read at the end, more volumes to remove
 * (a baked base the file made, say).
 */
export function useGuestLane(proxies: readonly string[], volumes: () => readonly string[] = () => []): GuestLane {
  // No connection is held across the file's own beforeAll: that hook may block the event
  // loop for long (the guest image's synchronous build or check), and libvirtd drops a
  // client that has not answered its keepalive for 30 s (a CI run lost bake.test.ts's so).
  // The connection is made (again, if it was lost) before each test and for the cleanup.
  let client: LibvirtClient | undefined;
  const live = async (): Promise<LibvirtClient> => {
    if (!client || client.closed) client = await systemClient();
    return client;
  };
  const children: Array<{ kill(): unknown }> = [];
  beforeAll(async () => {
    const c = await live();
    for (const name of proxies) await removeProxy(c, name);
    await c.close();
    client = undefined;
  }, 120_000);
  beforeEach(async () => {
    await live();
  }, 60_000);
  afterAll(async () => {
    for (const child of children) child.kill();
    const c = await live();
    for (const name of proxies) await removeProxy(c, name);
    await removeVolumes(c, volumes());
    await c.close();
    client = undefined;
  }, 120_000);
  return {
    get client() {
      if (!client) throw new Error("the guest lane's client is made before each test: use it from a test");
      return client;
    },
    stopAtEnd(child) {
      if (child) children.push(child);
      return child;
    },
    state() {
      return hypervisorState(this.client);
    },
    async expectAsBefore(before, kept = []) {
      const after = await this.state();
      expect(after.domains).toEqual(before.domains);
      expect(after.volumes).toEqual([...new Set([...before.volumes, ...kept])].sort());
    },
  };
}
