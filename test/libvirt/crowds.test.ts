/**
 * Crowds on the real daemon (issue 15): launches from several processes at once, on a
 * host whose base volume is not there yet (so the processes also race to upload it).
 * One process serialises its own launches; across processes only libvirt can arbitrate:
 * the proxy's root volume is the claim (creating a volume whose name exists fails), a
 * base volume being written by another process is waited for, never deleted as
 * "incomplete", and pool jobs libvirt refuses while another runs are retried.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServices, createAppServices } from '../../electron/ipc/app-services.js';
import { type LibvirtClient, findVolume, listAllDomains } from '../../electron/libvirt/index.js';
import {
  baseVolumeName,
  instanceId,
  instanceVolumes,
  isInstanceVolume,
} from '../../electron/services/provider/kvm/names.js';
import { removeProxy, removeVolumes, systemClient, testPool } from '../support/libvirt.js';
import { type ProviderHome, hypervisorState, localAndSshHome, localProviderHome } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { runCliProcess } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import type { Envelope } from '../../shared/ipc.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const SAME = 'egtest-crowd-same';
const MANY = Array.from({ length: 6 }, (_, i) => `egtest-crowd-${i + 1}`);
const CROSS = 'egtest-crowd-cross';
const MANY_ONE = ['egtest-crowd-many-1', 'egtest-crowd-many-2', 'egtest-crowd-many-3'];
const APP_TEN = Array.from({ length: 10 }, (_, i) => `egtest-crowd-app-${i + 1}`);
let client: LibvirtClient;
let cli: ProviderHome['proxies'];
let image: { path: string; sha256: string };
let services: AppServices | undefined;
let appHome: string;
let restoreHome = (): void => undefined;

/** A qcow2 holding 48 MiB of random data: its upload takes long enough for processes to overlap. */
function busyImage(dir: string): { path: string; sha256: string } {
  const raw = join(dir, 'busy.raw');
  const path = join(dir, 'busy.qcow2');
  execFileSync('dd', ['if=/dev/urandom', `of=${raw}`, 'bs=1M', 'count=48', 'status=none']);
  execFileSync('qemu-img', ['convert', '-q', '-f', 'raw', '-O', 'qcow2', raw, path]);
  return { path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
}

async function ourVolumes(): Promise<string[]> {
  const state = await hypervisorState(client);
  return state.volumes.filter((v) => isInstanceVolume(v) && v.includes('egtest-crowd'));
}

beforeAll(async () => {
  const home = tempDir('egress-crowds-');
  image = busyImage(home);
  appHome = home;
  cli = localProviderHome(env, 'egress-crowds-', home, { name: 'busy', ...image }).proxies;
  client = await systemClient();
  await removeVolumes(client, [baseVolumeName(image.sha256, 'qcow2')]);
});

afterAll(async () => {
  if (!client) return;
  await services?.close();
  restoreHome();
  for (const name of [SAME, CROSS, ...MANY_ONE, ...MANY, ...APP_TEN]) await removeProxy(client, name);
  await removeVolumes(client, [baseVolumeName(image.sha256, 'qcow2')]);
  await client.close();
});

/** The base volume is whole: libvirt reads the qcow2 header's virtual size. */
async function baseIsWhole(): Promise<void> {
  const vol = await findVolume(client, await testPool(client), baseVolumeName(image.sha256, 'qcow2'));
  expect(vol).not.toBeNull();
  const info = await client.call('STORAGE_VOL_GET_INFO', { vol: vol! });
  expect(Number(info.capacity)).toBe(48 * 1024 * 1024);
  expect(Number(info.allocation)).toBeGreaterThanOrEqual(Math.floor(readFileSync(image.path).length / 4096) * 4096);
}

describe('launches from several processes at once', () => {
  it('the same name from two processes (identical specs, cold base): one proxy, the other process gets it as it is; nothing duplicated or orphaned', async () => {
    const [a, b] = await Promise.all([
      cli('launch', SAME, '--allow', '192.168.150.0/24', '--json'),
      cli('launch', SAME, '--allow', '192.168.150.0/24', '--json'),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const created = [a, b].map((r) => (JSON.parse(r.stdout) as { created: boolean }).created).sort();
    expect(created).toEqual([false, true]);
    const domains = (await listAllDomains(client)).map((d) => d.name).filter((n) => n === instanceId(SAME));
    expect(domains).toEqual([instanceId(SAME)]);
    expect((await ourVolumes()).sort()).toEqual(Object.values(instanceVolumes(instanceId(SAME))).sort());
    await baseIsWhole();
    expect((await cli('delete', SAME)).code).toBe(0);
  });

  it('a different spec under the same name from another process at the same time: exactly one proxy, the other refused as AlreadyExists', async () => {
    await removeVolumes(client, [baseVolumeName(image.sha256, 'qcow2')]);
    const [a, b] = await Promise.all([
      cli('launch', SAME, '--allow', '192.168.150.0/24', '--json'),
      cli('launch', SAME, '--port', '8080', '--allow', '192.168.150.0/24', '--json'),
    ]);
    const codes = [a.code, b.code].sort();
    expect(codes, `${a.stderr}\n${b.stderr}`).toEqual([0, 1]);
    const loser = a.code === 1 ? a : b;
    expect(loser.stderr).toMatch(/already exists on host local with a different spec/);
    expect((await ourVolumes()).sort()).toEqual(Object.values(instanceVolumes(instanceId(SAME))).sort());
    expect((await cli('delete', SAME)).code).toBe(0);
  });

  it('six names from six processes on one host, cold base: all launched, the base uploaded whole once, no orphan', async () => {
    await removeVolumes(client, [baseVolumeName(image.sha256, 'qcow2')]);
    const results = await Promise.all(MANY.map((name) => cli('launch', name, '--allow', '192.168.150.0/24', '--json')));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const domains = new Set((await listAllDomains(client)).map((d) => d.name));
    for (const name of MANY) expect(domains.has(instanceId(name))).toBe(true);
    expect((await ourVolumes()).length).toBe(MANY.length * 2);
    await baseIsWhole();
    const uploads = results.filter(
      (r) => (JSON.parse(r.stdout) as { timings: Record<string, number> }).timings.upload !== undefined,
    ).length;
    expect(uploads).toBe(MANY.length);
    await Promise.all(MANY.map((name) => cli('delete', name)));
    expect(await ourVolumes()).toEqual([]);
  });

  it('ten launches at once from the app, across a local and an SSH entry: every one comes up, none duplicated; cancelled, nothing is left', async () => {
    // The app's launches wait until the proxy answers, and no guest boots here: "up" is the domain running (the task at its address step).
    let configFile: string;
    ({ configFile, restoreHome } = localAndSshHome(env, appHome, { name: 'busy', ...image }));
    await removeVolumes(client, [baseVolumeName(image.sha256, 'qcow2')]);
    services = createAppServices(join(appHome, 'app-data'), 'serve', {
      version: '0.0.0-test',
      configFile,
      reconcileIntervalMs: 0,
    });
    const invoke = async <T>(channel: string, input?: unknown): Promise<T> => {
      const envelope: Envelope = await services!.router.invoke(channel, input);
      if (!envelope.ok) throw new Error(`${channel}: ${envelope.error.message}`);
      return envelope.value as T;
    };
    const tasks = await Promise.all(
      APP_TEN.map((name, i) =>
        invoke<{ taskId: string }>('proxies:launch', {
          name,
          host: i % 2 ? 'loop' : 'local',
          allow: ['192.168.150.0/24'],
        }),
      ),
    );
    await waitFor(
      'ten launches to bring their domains up',
      240_000,
      () => {
        const all = tasks.map(({ taskId }) => services!.app.tasks.get(taskId)!);
        const ended = all.find((t) => t.state !== 'running' && t.state !== 'queued');
        if (ended) throw new Error(`a launch ended: ${ended.title}: ${ended.state}: ${JSON.stringify(ended.error)}`);
        return all.every((t) => t.step === 'address' || t.step === 'proxy') ? true : undefined;
      },
      250,
    );
    const domains = (await listAllDomains(client)).map((d) => d.name).filter((n) => n.includes('egtest-crowd-app'));
    expect(domains.sort()).toEqual(APP_TEN.map(instanceId).sort());
    await baseIsWhole();
    for (const { taskId } of tasks) await invoke('tasks:cancel', { id: taskId });
    for (const { taskId } of tasks) expect((await services.app.tasks.wait(taskId)).state).toBe('cancelled');
    expect((await listAllDomains(client)).map((d) => d.name).filter((n) => n.includes('egtest-crowd-app'))).toEqual([]);
    expect((await ourVolumes()).filter((v) => v.includes('egtest-crowd-app'))).toEqual([]);
  }, 360_000);

  it('the same name from the CLI and the app at once: exactly one proxy, the other gets it or AlreadyExists; nothing orphaned', async () => {
    expect(services, 'the app of the test before').toBeDefined();
    const invoke = async <T>(channel: string, input?: unknown): Promise<T> => {
      const envelope: Envelope = await services!.router.invoke(channel, input);
      if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { name: envelope.error.name });
      return envelope.value as T;
    };
    const [fromApp, fromCli] = await Promise.all([
      invoke<{ taskId: string }>('proxies:launch', { name: CROSS, host: 'local', allow: ['192.168.150.0/24'] }),
      cli('launch', CROSS, '--allow', '192.168.150.0/24', '--json'),
    ]);
    // The app's launch has either the proxy (its domain runs: the task waits at "address") or was refused.
    const appTask = await waitFor(
      'the app launch to have its domain or be refused',
      120_000,
      () => {
        const t = services!.app.tasks.get(fromApp.taskId);
        if (!t) return undefined;
        return t.state === 'failed' || t.step === 'address' || t.step === 'proxy' ? t : undefined;
      },
      100,
    );
    const appRefused = appTask.state === 'failed';
    if (appRefused) expect(appTask.error?.message).toMatch(/already exists on host local with a different spec/);
    if (fromCli.code !== 0) expect(fromCli.stderr).toMatch(/already exists on host local with a different spec/);
    expect(appRefused && fromCli.code !== 0, 'both refused').toBe(false);
    const domains = (await listAllDomains(client)).map((d) => d.name).filter((n) => n === instanceId(CROSS));
    expect(domains).toEqual([instanceId(CROSS)]);
    expect((await ourVolumes()).filter((v) => v.includes(CROSS)).sort()).toEqual(
      Object.values(instanceVolumes(instanceId(CROSS))).sort(),
    );
    if (!appRefused) {
      await invoke('tasks:cancel', { id: fromApp.taskId });
      await services!.app.tasks.wait(fromApp.taskId);
    }
    await removeProxy(client, CROSS);
    expect((await ourVolumes()).filter((v) => v.includes(CROSS))).toEqual([]);
  }, 180_000);

  it('three in one request (--count 3 --strategy local,loop): each on its entry in turn, all launched; deleted, nothing left', async () => {
    const configFile = join(appHome, 'local-and-ssh.yaml');
    const run = (...args: string[]) =>
      runCliProcess(['--config', configFile, 'proxies', ...args], {
        HOME: appHome,
        EGRESS_DESK_HOME: join(appHome, 'cli-many'),
      });
    const r = await run(
      'launch',
      'egtest-crowd-many-{n}',
      '--count',
      '3',
      '--strategy',
      'local,loop',
      '--allow',
      '192.168.150.0/24',
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Array<{ name: string; host: string; ok: boolean }>;
    expect(out.map((o) => [o.name, o.host, o.ok])).toEqual(
      MANY_ONE.map((name, i) => [name, i % 2 ? 'loop' : 'local', true]),
    );
    const domains = (await listAllDomains(client)).map((d) => d.name);
    for (const name of MANY_ONE) expect(domains).toContain(instanceId(name));
    const listed = JSON.parse((await run('list', '--json')).stdout) as {
      proxies: Array<{ name: string; host: string }>;
    };
    expect(
      listed.proxies
        .filter((p) => p.name.startsWith('egtest-crowd-many-'))
        .map((p) => [p.name, p.host])
        .sort(),
    ).toEqual(out.map((o) => [o.name, o.host]).sort());
    for (const name of MANY_ONE) expect((await run('delete', name)).code).toBe(0);
    expect((await ourVolumes()).filter((v) => v.includes('egtest-crowd-many-'))).toEqual([]);
  }, 180_000);
});
