/**
 * The soak lane (issue 15, "Time"): launch/delete cycles (no guest boot) over a local and
 * an SSH host entry, in the backend `serve` runs (createAppServices, through its router),
 * watching what grows with time: RSS and heap after a collection, open file descriptors,
 * and listing time, each compared with its value after warm-up. At the end nothing is left
 * on the host or in the credentials store.
 *
 * `npm test` runs a short count; `npm run soak` runs 200 cycles (EGRESS_SOAK_CYCLES).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServices, createAppServices } from '../../electron/ipc/app-services.js';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import type { Envelope } from '../../shared/ipc.js';
import type { FleetListingView } from '../../shared/proxies.js';
import type { Task } from '../../shared/tasks.js';
import { removeProxy, removeVolumes, systemClient } from '../support/libvirt.js';
import { hypervisorState, localAndSshHome, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { waitFor as poll } from '../support/wait.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const CYCLES = Number(process.env.EGRESS_SOAK_CYCLES ?? 20);
const WARMUP = Math.min(6, Math.floor(CYCLES / 4));
const NAMES = ['egtest-soak-a', 'egtest-soak-b'];
let services: AppServices | undefined;
let client: LibvirtClient;
let base: string;
let dataDir: string;
let restoreHome = (): void => undefined;

// A collection on demand, so that heap and RSS are compared after garbage is gone.
setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

async function call<T>(channel: string, input?: unknown): Promise<T> {
  const envelope: Envelope = await services!.router.invoke(channel, input);
  if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { name: envelope.error.name });
  return envelope.value as T;
}

async function task(channel: string, input: unknown): Promise<Task> {
  const { taskId } = await call<{ taskId: string }>(channel, input);
  const done = await services!.app.tasks.wait(taskId);
  if (done.state !== 'succeeded')
    throw new Error(`${channel} ${JSON.stringify(input)}: ${done.state}: ${JSON.stringify(done.error)}`);
  return done;
}

/**
 * One cycle. The app's launch waits until the proxy answers, and no guest boots here: so
 * the proxy is launched until its domain runs (the task reaches "address"), then taken
 * away as a person would — deleted while it comes up (even cycles), or its launch
 * cancelled, which rolls the launch back (odd cycles). Both end with nothing left.
 */
async function cycle(i: number): Promise<void> {
  const name = NAMES[i % 2]!;
  const { taskId } = await call<{ taskId: string }>('proxies:launch', {
    name,
    host: i % 2 === 0 ? 'local' : 'loop',
    allow: ['192.168.150.0/24'],
  });
  await poll(
    `launch ${name} to reach its address step`,
    60_000,
    () => {
      const t = services!.app.tasks.get(taskId);
      if (t && t.state !== 'running' && t.state !== 'queued')
        throw new Error(`launch ${name} ended early: ${t.state}: ${JSON.stringify(t.error)}`);
      return t?.step === 'address' || t?.step === 'proxy' ? true : undefined;
    },
    50,
  );
  if (i % 2 === 0) {
    await task('proxies:delete', { name, confirm: true });
    const launch = await services!.app.tasks.wait(taskId);
    expect(launch.state).toBe('failed'); // its domain went away under it: said so, nothing rolled back twice
  } else {
    await call('tasks:cancel', { id: taskId });
    expect((await services!.app.tasks.wait(taskId)).state).toBe('cancelled');
  }
}

interface Sample {
  rssMB: number;
  heapMB: number;
  fds: number;
  listMs: number;
}

async function sample(): Promise<Sample> {
  const t0 = performance.now();
  await call<FleetListingView>('proxies:list');
  const listMs = performance.now() - t0;
  gc();
  const mem = process.memoryUsage();
  return { rssMB: mem.rss / 2 ** 20, heapMB: mem.heapUsed / 2 ** 20, fds: readdirSync('/proc/self/fd').length, listMs };
}

beforeAll(async () => {
  const home = tempDir('egress-soak-');
  const image = tinyImage(home);
  base = baseVolumeName(image.sha256, 'qcow2');
  // The SSH entry reads ~/.ssh/known_hosts: HOME is the test's own for the backend's life.
  let configFile: string;
  ({ configFile, restoreHome } = localAndSshHome(env, home, { name: 'tiny', ...image }));
  client = await systemClient();
  dataDir = join(home, 'data');
  services = createAppServices(dataDir, 'serve', { version: '0.0.0-test', configFile, reconcileIntervalMs: 0 });
});

afterAll(async () => {
  await services?.close();
  restoreHome();
  if (!client) return;
  for (const name of NAMES) await removeProxy(client, name);
  await removeVolumes(client, [base]);
  await client.close();
});

describe('soak: launch and delete, again and again', () => {
  it(
    `${CYCLES} launch/delete cycles over a local and an SSH entry: memory, descriptors and listing time stay level; nothing is left`,
    async () => {
      const before = await hypervisorState(client);
      let warm: Sample | undefined;
      const t0 = Date.now();
      for (let i = 0; i < CYCLES; i++) {
        await cycle(i);
        if (i + 1 === WARMUP) warm = await sample();
      }
      const end = await sample();
      const perCycle = (Date.now() - t0) / CYCLES;
      console.log(
        `soak: ${CYCLES} cycles, ${perCycle.toFixed(0)} ms each; after warm-up (${WARMUP}) → end: RSS ${warm!.rssMB.toFixed(1)} → ${end.rssMB.toFixed(1)} MB, heap ${warm!.heapMB.toFixed(1)} → ${end.heapMB.toFixed(1)} MB, fds ${warm!.fds} → ${end.fds}, list ${warm!.listMs.toFixed(0)} → ${end.listMs.toFixed(0)} ms`,
      );
      expect(end.fds).toBeLessThanOrEqual(Math.ceil(warm!.fds * 1.1));
      expect(end.heapMB).toBeLessThanOrEqual(warm!.heapMB * 1.1);
      expect(end.rssMB).toBeLessThanOrEqual(warm!.rssMB * 1.1);
      // Listing a fleet of zero is a few ms: "level" means no growth beyond noise.
      expect(end.listMs).toBeLessThanOrEqual(Math.max(warm!.listMs * 2, warm!.listMs + 100));

      const after = await hypervisorState(client);
      const ours = (names: string[]) => names.filter((n) => n.includes('egtest-soak'));
      expect(ours(after.domains)).toEqual(ours(before.domains));
      expect(ours(after.volumes)).toEqual([]);
      const creds = join(dataDir, 'credentials.json');
      expect(existsSync(creds) ? (JSON.parse(readFileSync(creds, 'utf8')) as { proxies: object }).proxies : {}).toEqual(
        {},
      );
    },
    CYCLES * 20_000 + 60_000,
  );
});
