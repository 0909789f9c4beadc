/**
 * The fault lane (issue 15, "Faults"): each fault injected for real on the test
 * environment's own components, and what a person sees and what is left behind checked on
 * the real daemon. docs/reliability.md has the table of faults and the tests that prove them.
 *
 * - an SSH session cut during the base-image upload (the sshd processes serving it killed);
 * - a pool without room (a small tmpfs mounted inside libvirtd's own mount namespace);
 * - the host's network gone (`virsh net-destroy`);
 * - the workstation's disk full during an image download (a small tmpfs as the cache);
 * - a guest that never boots (garbage as its disk), waited for;
 * - libvirtd restarted under the app (test/env/restart-libvirtd.sh);
 * - the config file broken by hand while the app runs.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServices, createAppServices } from '../../electron/ipc/app-services.js';
import { type LibvirtClient, findVolume } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import type { ConfigState, Envelope } from '../../shared/ipc.js';
import type { FleetListingView } from '../../shared/proxies.js';
import type { Task } from '../../shared/tasks.js';
import { removeProxy, removeVolumes, systemClient, testPool } from '../support/libvirt.js';
import { hypervisorState, localAndSshHome, providerHome, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { waitFor } from '../support/wait.js';
import { runCliProcess } from '../support/cli.js';
import { TestServer, generatedFile } from '../unit/images/server.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
let client: LibvirtClient;

beforeAll(async () => {
  client = await systemClient();
  watch(client);
});

afterAll(async () => {
  await client?.close();
});

/**
 * The file's client, connected again when it was lost (a daemon restart, a keepalive
 * timeout): cleanup must not depend on the connection a failed test may have broken.
 */
async function live(): Promise<LibvirtClient> {
  if (client.closed) {
    // Said in the log: a lost connection is worth knowing about even when the test goes on.
    console.warn(`faults: the test's own libvirt connection had closed (${lostBecause ?? 'no reason given'}); connecting again`);
    client = await systemClient();
    watch(client);
  }
  return client;
}

let lostBecause: string | undefined;
function watch(c: LibvirtClient): void {
  c.on('close', (reason: unknown) => {
    lostBecause = reason instanceof Error ? reason.message : String(reason);
  });
}

function virsh(...args: string[]): string {
  return execFileSync('virsh', ['-q', '-c', 'qemu:///system', ...args], { encoding: 'utf8' });
}

/** The backend serve runs, over a local and an SSH entry on the test hypervisor. */
async function backend(prefix: string, image: { path: string; sha256: string; format?: 'raw' }) {
  const home = tempDir(prefix);
  const { configFile, restoreHome } = localAndSshHome(env, home, { name: 'img', ...image });
  if (image.format) writeFileSync(configFile, readFileSync(configFile, 'utf8').replace(/sha256: ([0-9a-f]{64}) \}/, 'sha256: $1, format: raw }'));
  const services = createAppServices(join(home, 'data'), 'serve', { version: '0.0.0-test', configFile, reconcileIntervalMs: 0 });
  const call = async <T,>(channel: string, input?: unknown): Promise<T> => {
    const envelope: Envelope = await services.router.invoke(channel, input);
    if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { name: envelope.error.name });
    return envelope.value as T;
  };
  const close = async (): Promise<void> => {
    await services.close();
    restoreHome();
  };
  return { home, services, call, close };
}

/** Waits for a launch task to reach `step` (or end); returns the task as it is then. */
async function taskAt(services: AppServices, taskId: string, steps: string[], ms = 120_000): Promise<Task> {
  return waitFor(`task ${taskId} to reach ${steps.join('/')}`, ms, () => {
    const t = services.app.tasks.get(taskId);
    if (!t) return undefined;
    if (t.state !== 'running' && t.state !== 'queued') return t;
    return t.step !== undefined && steps.includes(t.step) ? t : undefined;
  }, 20);
}

/** The pids of the sessions the test sshd forked (its children), not the listener itself. */
function sshdSessions(): number[] {
  const master = Number(readFileSync(join(env.EGRESS_TEST_STATE, 'ssh', 'sshd.pid'), 'utf8').trim());
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === master;
      } catch {
        return false;
      }
    });
}

async function sha256OfVolume(name: string): Promise<string> {
  const c = await live();
  const vol = await findVolume(c, await testPool(c), name);
  if (!vol) throw new Error(`volume ${name} is not in the pool`);
  const hash = createHash('sha256');
  await c.downloadVolume(vol, new Writable({ write: (c: Buffer, _e, cb) => (hash.update(c), cb()) }));
  return hash.digest('hex');
}

describe('fault: the SSH session is cut during the base-image upload', () => {
  const NAME = 'egtest-fault-cut';
  let dir: string;
  let image: { path: string; sha256: string };
  let base: string;
  let app: Awaited<ReturnType<typeof backend>> | undefined;

  beforeAll(async () => {
    dir = tempDir('egress-fault-cut-');
    // Random bytes (raw) take long enough to upload that the cut lands mid-stream.
    const path = join(dir, 'busy.raw');
    const bytes = randomBytes(384 * 1024 * 1024);
    writeFileSync(path, bytes);
    image = { path, sha256: createHash('sha256').update(bytes).digest('hex') };
    base = baseVolumeName(image.sha256, 'raw');
    await removeVolumes(await live(), [base]);
    app = await backend('egress-fault-cut-', { ...image, format: 'raw' });
  });

  afterAll(async () => {
    await app?.close();
    await removeProxy(await live(), NAME, [base]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails naming the step and the cause, leaves nothing (no half base), and the next launch succeeds with an intact base', async () => {
    const { services, call } = app!;
    const before = await hypervisorState(await live());
    const { taskId } = await call<{ taskId: string }>('proxies:launch', { name: NAME, host: 'loop', allow: ['192.168.150.0/24'] });
    // Cut once the base volume exists and bytes are flowing into it.
    await waitFor('the upload to be under way', 60_000, async () => {
      const t = services.app.tasks.get(taskId);
      if (t && t.state !== 'running' && t.state !== 'queued') throw new Error(`the launch ended before the upload: ${JSON.stringify(t.error)}`);
      return t?.step === 'upload' && (t.progress?.done ?? 0) > 0 ? true : undefined;
    }, 5);
    const sessions = sshdSessions();
    expect(sessions.length).toBeGreaterThan(0);
    for (const pid of sessions) process.kill(pid, 'SIGKILL');

    const failed = await services.app.tasks.wait(taskId);
    expect(failed.state).toBe('failed');
    expect(failed.error?.message).toMatch(/launch failed at step "upload": .*SSH connection to 127\.0\.0\.1:\d+ was lost/);
    expect(failed.error?.message).not.toMatch(/left behind|is left in pool/);
    // No domain, overlay, seed, and no half-written base.
    expect(await hypervisorState(await live())).toEqual(before);

    // The next launch reconnects, uploads the whole base again and gets past boot.
    const again = await call<{ taskId: string }>('proxies:launch', { name: NAME, host: 'loop', allow: ['192.168.150.0/24'] });
    const reached = await taskAt(services, again.taskId, ['address', 'proxy']);
    expect(reached.state, JSON.stringify(reached.error)).toBe('running');
    expect(await sha256OfVolume(base)).toBe(image.sha256);
    await call('tasks:cancel', { id: again.taskId });
    expect((await services.app.tasks.wait(again.taskId)).state).toBe('cancelled');
    expect(await hypervisorState(await live())).toEqual({ ...before, volumes: [...before.volumes, base].sort() });
  });
});

describe('fault: a pool without room', () => {
  const POOL = 'egtest-fault-small';
  const NAME = 'egtest-fault-full';
  let dir: string;
  let home: ReturnType<typeof providerHome>;
  let libvirtd: number;

  beforeAll(() => {
    dir = tempDir('egress-fault-pool-');
    const image = tinyImage(dir);
    // Mounted inside libvirtd's own mount namespace (ip netns exec gave it one; a mount made
    // outside would be invisible to it and it would write to the directory underneath).
    libvirtd = Number(readFileSync(join(env.EGRESS_TEST_STATE, 'run', 'started-libvirtd'), 'utf8').trim());
    const poolDir = join(dir, 'pool');
    mkdirSync(poolDir);
    execFileSync('nsenter', ['-t', String(libvirtd), '-m', 'mount', '-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', poolDir]);
    virsh('pool-create-as', POOL, 'dir', '--target', poolDir);
    home = providerHome('egress-fault-pool-', {
      host: `{ name: small, address: local, pool: ${POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`,
      machineType: 'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
      image: { name: 'tiny', ...image },
    });
  });

  afterAll(async () => {
    await removeProxy(await live(), NAME);
    try {
      virsh('pool-destroy', POOL);
    } catch {
      /* not created */
    }
    execFileSync('nsenter', ['-t', String(libvirtd), '-m', 'umount', join(dir, 'pool')], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused before anything is created, with the bytes needed and free, asked for or placed', async () => {
    const volumesBefore = virsh('vol-list', POOL);
    const domainsBefore = (await hypervisorState(await live())).domains;
    const asked = await home.proxies('launch', NAME, '--host', 'small');
    expect(asked.code, asked.stderr).toBe(1);
    expect(asked.stderr).toMatch(/launch failed at step "place": small: pool egtest-fault-small has \d+(\.\d)? MiB \(\d+ bytes\) free, the proxy's disk may grow to 1\.0 GiB \(1073741824 bytes\)/);
    const placed = await home.proxies('launch', NAME);
    expect(placed.code, placed.stderr).toBe(1);
    expect(placed.stderr).toMatch(/no host can take the proxy: small: pool egtest-fault-small has \d+(\.\d)? MiB \(\d+ bytes\) free, the disk needs 1\.0 GiB \(1073741824 bytes\)/);
    expect(asked.stderr + placed.stderr).not.toMatch(/\n\s+at /);
    expect(virsh('vol-list', POOL)).toBe(volumesBefore);
    expect((await hypervisorState(await live())).domains).toEqual(domainsBefore);
  });
});

describe('fault: the host network is gone', () => {
  const RUNNING = 'egtest-fault-net-a';
  const REFUSED = 'egtest-fault-net-b';
  let dir: string;
  let base: string;
  let home: ReturnType<typeof providerHome>;

  beforeAll(() => {
    dir = tempDir('egress-fault-net-');
    const image = tinyImage(dir);
    base = baseVolumeName(image.sha256, 'qcow2');
    home = providerHome('egress-fault-net-', {
      host: `{ name: local, address: local, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`,
      machineType: 'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
      image: { name: 'tiny', ...image },
    });
  });

  afterAll(async () => {
    // The network comes back for the lanes after this one, whatever happened here.
    if (!virsh('net-list', '--name').split('\n').includes(env.EGRESS_TEST_NETWORK)) virsh('net-start', env.EGRESS_TEST_NETWORK);
    for (const name of [RUNNING, REFUSED]) await removeProxy(await live(), name);
    await removeVolumes(await live(), [base]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('launch refuses with the reason and creates nothing; listing still works and says why addresses are unknown', async () => {
    const up = await home.proxies('launch', RUNNING, '--allow', '192.168.150.0/24');
    expect(up.code, up.stderr).toBe(0);
    virsh('net-destroy', env.EGRESS_TEST_NETWORK);
    const before = await hypervisorState(await live());

    const refused = await home.proxies('launch', REFUSED, '--host', 'local', '--allow', '192.168.150.0/24');
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(`launch failed at step "place": local: network ${env.EGRESS_TEST_NETWORK} is not active (start it with virsh net-start ${env.EGRESS_TEST_NETWORK}, or choose another host)`);
    const placed = await home.proxies('launch', REFUSED, '--allow', '192.168.150.0/24');
    expect(placed.code, placed.stderr).toBe(1);
    expect(placed.stderr).toContain(`no host can take the proxy: local: network ${env.EGRESS_TEST_NETWORK} is not active`);
    expect(await hypervisorState(await live())).toEqual(before);

    const listed = await home.proxies('list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const listing = JSON.parse(listed.stdout) as FleetListingView;
    const proxy = listing.proxies.find((p) => p.name === RUNNING);
    expect(proxy).toMatchObject({ state: 'running', addresses: [], addressNote: `addresses unknown: network ${env.EGRESS_TEST_NETWORK} is not active (virsh net-start ${env.EGRESS_TEST_NETWORK})` });
    const text = await home.proxies('list');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(RUNNING);
    expect(text.stderr).toContain(`proxy ${RUNNING}: addresses unknown: network ${env.EGRESS_TEST_NETWORK} is not active`);

    virsh('net-start', env.EGRESS_TEST_NETWORK);
    const deleted = await home.proxies('delete', RUNNING);
    expect(deleted.code, deleted.stderr).toBe(0);
  });
});

describe('fault: the workstation disk fills during an image download', () => {
  let dir: string;
  let server: TestServer;
  let cacheDir = '';
  let mounted = false;

  beforeAll(async () => {
    dir = tempDir('egress-fault-disk-');
    server = await new TestServer().start();
  });

  afterAll(async () => {
    await server.close();
    if (mounted) execFileSync('umount', [cacheDir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('one clear error, the partial kept and resumed once there is room, the cache never corrupted', async () => {
    const big = generatedFile(40 * 1024 * 1024);
    const small = generatedFile(1024 * 1024);
    server.files.set('/big.qcow2', big.file);
    server.files.set('/small.qcow2', small.file);
    const home = providerHome('egress-fault-disk-', {
      host: `{ name: local, address: local, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`,
      machineType: 'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
      image: { name: 'small', path: '/unused', sha256: small.sha256 },
      extra: [`  # big and small are served by the test on 127.0.0.1`],
      home: dir,
    });
    writeFileSync(
      home.config,
      readFileSync(home.config, 'utf8')
        .replace('url: "file:///unused"', `url: "${server.url('/small.qcow2')}"`)
        .replace('  defaults:', `    big: { url: "${server.url('/big.qcow2')}", sha256: ${big.sha256} }\n  defaults:`),
    );
    const images = (...args: string[]) => runCliProcess(['--config', home.config, 'images', ...args], { HOME: dir, EGRESS_DESK_HOME: join(dir, 'data') });
    const listed = await images('list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    cacheDir = (JSON.parse(listed.stdout) as { cacheDir: string }).cacheDir;
    mkdirSync(cacheDir, { recursive: true });
    // A cache disk with room for the small image and half the big one.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', cacheDir]);
    mounted = true;
    const first = await images('pull', 'small');
    expect(first.code, first.stderr).toBe(0);

    const full = await images('pull', 'big');
    expect(full.code).toBe(1);
    // Progress lines, then one error.
    const errors = full.stderr.trim().split('\n').filter((l) => l.startsWith('egress-desk:'));
    expect(errors, full.stderr).toHaveLength(1);
    expect(errors[0]).toMatch(/^egress-desk: the disk holding the image cache is full \(ENOSPC\) while writing .*\.partial: the \d+ bytes downloaded so far are kept; free space there .* and pull again to resume$/);
    expect(full.stderr).not.toMatch(/\n\s+at /);
    const partial = readdirSync(cacheDir).find((f) => f === `${big.sha256}.partial`);
    expect(partial, readdirSync(cacheDir).join(', ')).toBeDefined();
    const kept = statSync(join(cacheDir, partial!)).size;
    expect(kept).toBeGreaterThan(0);
    // The image already cached is whole.
    const cached = readdirSync(cacheDir).find((f) => f.startsWith(small.sha256) && !f.includes('.partial') && !f.endsWith('.lock'));
    expect(cached, readdirSync(cacheDir).join(', ')).toBeDefined();
    expect(createHash('sha256').update(readFileSync(join(cacheDir, cached!))).digest('hex')).toBe(small.sha256);

    execFileSync('mount', ['-o', 'remount,size=96m', cacheDir]);
    const resumed = await images('pull', 'big', '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ name: 'big', sha256: big.sha256 });
    const ranges = server.requestsFor('/big.qcow2').map((r) => r.headers.range).filter(Boolean);
    expect(ranges.at(-1)).toMatch(/^bytes=\d+-$/);
    expect(Number(/^bytes=(\d+)-$/.exec(ranges.at(-1)!)![1])).toBeGreaterThan(0);
  });
});

describe('fault: a guest that never boots', () => {
  const LEFT = 'egtest-fault-noboot-a';
  const ROLLED = 'egtest-fault-noboot-b';
  let dir: string;
  let base: string;
  let home: ReturnType<typeof providerHome>;

  beforeAll(() => {
    dir = tempDir('egress-fault-noboot-');
    // Garbage as a disk: the firmware finds nothing to boot, no lease, no agent, no proxy.
    const path = join(dir, 'garbage.raw');
    const bytes = randomBytes(4 * 1024 * 1024);
    writeFileSync(path, bytes);
    const image = { path, sha256: createHash('sha256').update(bytes).digest('hex') };
    base = baseVolumeName(image.sha256, 'raw');
    home = providerHome('egress-fault-noboot-', {
      host: `{ name: local, address: local, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`,
      machineType: 'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
      image: { name: 'garbage', ...image },
    });
    writeFileSync(home.config, readFileSync(home.config, 'utf8').replace(/sha256: ([0-9a-f]{64}) \}/, 'sha256: $1, format: raw }'));
  });

  afterAll(async () => {
    for (const name of [LEFT, ROLLED]) await removeProxy(await live(), name);
    await removeVolumes(await live(), [base]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('--wait ends with the honest message; --rollback-on-timeout leaves nothing, without it the VM is left for inspection', async () => {
    const before = await hypervisorState(await live());
    const rolled = await home.proxies('launch', ROLLED, '--wait', '--timeout', '15', '--rollback-on-timeout', '--allow', '192.168.150.0/24');
    expect(rolled.code, rolled.stderr).not.toBe(0);
    expect(rolled.stderr).toMatch(new RegExp(`proxy ${ROLLED} was not ready in time: no DHCP lease for [0-9a-f:]+ on network ${env.EGRESS_TEST_NETWORK} yet; guest agent not answering .*; it was removed \\(rollback on timeout\\)`));
    expect(rolled.stderr).not.toMatch(/\n\s+at /);
    // Nothing of the launch is left; the (shared) base stays, as after any launch.
    expect(await hypervisorState(await live())).toEqual({ ...before, volumes: [...before.volumes, base].sort() });

    const left = await home.proxies('launch', LEFT, '--wait', '--timeout', '15', '--allow', '192.168.150.0/24');
    expect(left.code, left.stderr).not.toBe(0);
    expect(left.stderr).toMatch(new RegExp(`proxy ${LEFT} was not ready in time: .*; it is left running for inspection \\(egress-desk proxies inspect ${LEFT}; delete it with egress-desk proxies delete ${LEFT}\\)`));
    const listed = JSON.parse((await home.proxies('list', '--json')).stdout) as FleetListingView;
    expect(listed.proxies.find((p) => p.name === LEFT)).toMatchObject({ state: 'running' });
    expect((await home.proxies('delete', LEFT)).code).toBe(0);
    expect(await hypervisorState(await live())).toEqual({ ...before, volumes: [...before.volumes, base].sort() });
  });
});

describe('fault: libvirtd restarted while the app is open', () => {
  const STOPPED = 'egtest-fault-restart-a';
  const INFLIGHT = 'egtest-fault-restart-b';
  let dir: string;
  let base: string;
  let app: Awaited<ReturnType<typeof backend>> | undefined;
  const statuses: Array<{ at: number; name: string; state: string; message?: string }> = [];
  const changes: Array<{ at: number; name?: string; event: string; removed: boolean }> = [];

  beforeAll(async () => {
    dir = tempDir('egress-fault-restart-');
    const image = tinyImage(dir);
    base = baseVolumeName(image.sha256, 'qcow2');
    app = await backend('egress-fault-restart-', image);
    app.services.app.subscribe((event, payload) => {
      if (event === 'host:status') {
        const s = payload as { name: string; state: string; message?: string };
        statuses.push({ at: Date.now(), name: s.name, state: s.state, ...(s.message ? { message: s.message } : {}) });
      }
      if (event === 'proxy:changed') {
        const c = payload as { name?: string; event: string; removed: boolean };
        changes.push({ at: Date.now(), ...(c.name ? { name: c.name } : {}), event: c.event, removed: c.removed });
      }
    });
  });

  afterAll(async () => {
    await app?.close();
    for (const name of [STOPPED, INFLIGHT]) await removeProxy(await live(), name);
    await removeVolumes(await live(), [base]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('hosts reconnect by themselves, events are subscribed again, no ghost or duplicate rows; the launch in flight fails and rolls back once the daemon is back', async () => {
    const { services, call } = app!;
    // A proxy of this app that is stopped (started with virsh after the restart), and one still coming up.
    const keep = await home().proxies('launch', STOPPED, '--host', 'local', '--allow', '192.168.150.0/24');
    expect(keep.code, keep.stderr).toBe(0);
    virsh('destroy', instanceId(STOPPED));
    const inflight = await call<{ taskId: string }>('proxies:launch', { name: INFLIGHT, host: 'loop', allow: ['192.168.150.0/24'] });
    await taskAt(services, inflight.taskId, ['address', 'proxy']);
    const before = await call<FleetListingView>('proxies:list');
    expect(before.proxies.map((p) => p.name).sort()).toEqual([STOPPED, INFLIGHT].sort());
    await waitFor('both hosts connected', 30_000, () => (['local', 'loop'].every((h) => statuses.some((s) => s.name === h && s.state === 'connected')) ? true : undefined), 50);

    const restartedAt = Date.now();
    execFileSync('bash', [join(process.cwd(), 'test/env/restart-libvirtd.sh'), '2'], { stdio: 'ignore' });
    // The test's own connection went with the old daemon too.
    await client.close().catch(() => undefined);
    client = await systemClient();
    watch(client);

    for (const host of ['local', 'loop']) {
      await waitFor(`${host} back to connected by itself`, 60_000, () => (statuses.some((s) => s.name === host && s.state === 'connected' && s.at > restartedAt) ? true : undefined), 50);
      const after = statuses.filter((s) => s.name === host && s.at > restartedAt - 5_000);
      expect(after.map((s) => s.state), JSON.stringify(after)).toContain('reconnecting');
      expect(after.find((s) => s.state === 'reconnecting')!.message).toMatch(/^connection lost: .*reconnecting (in|now)/);
    }

    // The launch in flight failed, naming why; its rollback ran once the daemon was back.
    const failed = await services.app.tasks.wait(inflight.taskId);
    expect(failed.state).toBe('failed');
    expect(failed.error?.message).toMatch(/^launch failed at step "(address|proxy)": /);
    expect(failed.error?.message).not.toMatch(/rollback left behind/);
    await waitFor('the in-flight launch rolled back', 30_000, async () => ((await hypervisorState(await live())).domains.includes(instanceId(INFLIGHT)) ? undefined : true), 200);

    // Events flow again: a domain started with virsh shows within 2 s.
    const startedAt = Date.now();
    virsh('start', instanceId(STOPPED));
    const started = await waitFor('the STARTED event', 5_000, () => changes.find((c) => c.name === STOPPED && c.event === 'STARTED' && c.at >= startedAt), 20);
    expect(started.at - startedAt).toBeLessThan(2_000);

    const listing = await call<FleetListingView>('proxies:list');
    const names = listing.proxies.map((p) => p.name);
    expect(names).toEqual([...new Set(names)]);
    expect(names).toEqual([STOPPED]);
    expect(listing.proxies[0]).toMatchObject({ host: 'local', state: 'running' });
    expect(listing.hosts.map((h) => h.ok)).toEqual([true, true]);
  });

  /** The CLI on the same home as the app (its credentials file and config). */
  function home() {
    const configFile = join(app!.home, 'local-and-ssh.yaml');
    return { proxies: (...args: string[]) => runCliProcess(['--config', configFile, 'proxies', ...args], { HOME: app!.home, EGRESS_DESK_HOME: join(app!.home, 'data') }) };
  }
});

describe('fault: the config file is broken by hand while the app runs', () => {
  let dir: string;
  let app: Awaited<ReturnType<typeof backend>> | undefined;
  let configFile: string;
  const states: ConfigState[] = [];

  beforeAll(async () => {
    dir = tempDir('egress-fault-config-');
    app = await backend('egress-fault-config-', tinyImage(dir));
    configFile = join(app.home, 'local-and-ssh.yaml');
    app.services.app.subscribe((event, payload) => {
      if (event === 'config:changed') states.push(payload as ConfigState);
    });
  });

  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps working on the last good config, says which line is wrong, never overwrites the file; a fixed file is taken', async () => {
    const { call } = app!;
    const good = readFileSync(configFile, 'utf8');
    expect((await call<Array<{ name: string }>>('machineTypes:list')).map((m) => m.name)).toEqual(['tiny']);
    await call<FleetListingView>('proxies:list');

    // A value the schema refuses, typed in an editor.
    const broken = good.replace('diskGiB: 1 }', 'diskGiB: -3 }');
    expect(broken).not.toBe(good);
    writeFileSync(configFile, broken);
    const line = broken.split('\n').findIndex((l) => l.includes('diskGiB: -3')) + 1;
    const reported = await waitFor('config:changed (broken)', 10_000, () => states.find((s) => s.issues?.length), 50);
    expect(reported).toMatchObject({ lastGood: true, issues: [{ path: 'kvm.machineTypes.tiny.diskGiB', line }] });
    expect(await call<ConfigState>('config:get')).toMatchObject({ lastGood: true, issues: [{ path: 'kvm.machineTypes.tiny.diskGiB', line }] });

    // The app goes on with the last good config.
    expect((await call<Array<{ name: string }>>('machineTypes:list')).map((m) => m.name)).toEqual(['tiny']);
    const listing = await call<FleetListingView>('proxies:list');
    expect(listing.hosts.map((h) => h.ok)).toEqual([true, true]);
    expect((await call<Array<{ name: string; state: string }>>('hosts:list')).map((h) => h.name)).toEqual(['local', 'loop']);

    // A change from the app would overwrite the person's file: refused, naming the problem; the file is as they left it.
    const edit = await call('machineTypes:save', { name: 'big', vcpus: 2, memoryMiB: 1024, diskGiB: 4 }).catch((e: unknown) => e);
    expect((edit as Error).message).toMatch(/kvm\.machineTypes\.tiny\.diskGiB/);
    expect(readFileSync(configFile, 'utf8')).toBe(broken);

    // A syntax error is reported with its line too.
    writeFileSync(configFile, `${good}  oops: [\n`);
    const syntax = await waitFor('config:changed (syntax)', 10_000, () => states.find((s) => s.error), 50);
    expect(syntax.error).toMatch(/line \d+, column \d+/);
    expect(syntax.lastGood).toBe(true);

    // Fixed by hand, with a new machine type: taken, without a restart.
    writeFileSync(configFile, good.replace('    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }', '    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }\n    big: { vcpus: 2, memoryMiB: 1024, diskGiB: 4 }'));
    const fixed = await waitFor('config:changed (fixed)', 10_000, () => states.find((s) => s.config), 50);
    expect(fixed.lastGood).toBeUndefined();
    expect((await call<Array<{ name: string }>>('machineTypes:list')).map((m) => m.name).sort()).toEqual(['big', 'tiny']);
    expect((await call<FleetListingView>('proxies:list')).hosts.map((h) => h.ok)).toEqual([true, true]);
  });
});
