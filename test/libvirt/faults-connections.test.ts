/**
 * The fault lane (issue 15, "Faults"), connections lost: each fault injected for real on
 * the test environment's own components, and what a person sees and what is left behind
 * checked on the real daemon. docs/reliability.md has the table of faults and the tests
 * that prove them; the other faults are in faults-resources.test.ts and
 * faults-bad-input.test.ts.
 *
 * - an SSH session cut during the base-image upload (the sshd processes serving it killed);
 * - libvirtd restarted under the app (test/env/restart-libvirtd.sh).
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import type { FleetListingView } from '../../shared/proxies.js';
import { removeProxy, removeVolumes } from '../support/libvirt.js';
import { hypervisorState, tinyImage } from '../support/provider.js';
import { waitFor } from '../support/wait.js';
import { runCliProcess } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';
import {
  type Backend,
  backend,
  removeLeftovers,
  sha256OfVolume,
  sshdSessions,
  taskAt,
  useSystemClient,
  virsh,
} from './fault-support.js';

const sys = useSystemClient();

describe('fault: the SSH session is cut during the base-image upload', () => {
  const NAME = 'egtest-fault-cut';
  let dir: string;
  let image: { path: string; sha256: string };
  let base: string;
  let app: Backend | undefined;

  beforeAll(async () => {
    dir = tempDir('egress-fault-cut-');
    // Random bytes (raw) take long enough to upload that the cut lands mid-stream.
    const path = join(dir, 'busy.raw');
    const bytes = randomBytes(384 * 1024 * 1024);
    writeFileSync(path, bytes);
    image = { path, sha256: createHash('sha256').update(bytes).digest('hex') };
    base = baseVolumeName(image.sha256, 'raw');
    await removeVolumes(await sys.live(), [base]);
    app = await backend('egress-fault-cut-', { ...image, format: 'raw' });
  });

  afterAll(async () => {
    await app?.close();
    await removeProxy(await sys.live(), NAME, [base]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails naming the step and the cause, leaves nothing (no half base), and the next launch succeeds with an intact base', async () => {
    const { services, call } = app!;
    const before = await hypervisorState(await sys.live());
    const { taskId } = await call<{ taskId: string }>('proxies:launch', {
      name: NAME,
      host: 'loop',
      allow: ['192.168.150.0/24'],
    });
    // Cut once the base volume exists and bytes are flowing into it.
    await waitFor(
      'the upload to be under way',
      60_000,
      async () => {
        const t = services.app.tasks.get(taskId);
        if (t && t.state !== 'running' && t.state !== 'queued')
          throw new Error(`the launch ended before the upload: ${JSON.stringify(t.error)}`);
        return t?.step === 'upload' && (t.progress?.done ?? 0) > 0 ? true : undefined;
      },
      5,
    );
    const sessions = sshdSessions();
    expect(sessions.length).toBeGreaterThan(0);
    for (const pid of sessions) process.kill(pid, 'SIGKILL');

    const failed = await services.app.tasks.wait(taskId);
    expect(failed.state).toBe('failed');
    expect(failed.error?.message).toMatch(
      /launch failed at step "upload": .*SSH connection to 127\.0\.0\.1:\d+ was lost/,
    );
    expect(failed.error?.message).not.toMatch(/left behind|is left in pool/);
    // No domain, overlay, seed, and no half-written base.
    expect(await hypervisorState(await sys.live())).toEqual(before);

    // The next launch reconnects, uploads the whole base again and gets past boot.
    const again = await call<{ taskId: string }>('proxies:launch', {
      name: NAME,
      host: 'loop',
      allow: ['192.168.150.0/24'],
    });
    const reached = await taskAt(services, again.taskId, ['address', 'proxy']);
    expect(reached.state, JSON.stringify(reached.error)).toBe('running');
    expect(await sha256OfVolume(await sys.live(), base)).toBe(image.sha256);
    await call('tasks:cancel', { id: again.taskId });
    expect((await services.app.tasks.wait(again.taskId)).state).toBe('cancelled');
    expect(await hypervisorState(await sys.live())).toEqual({ ...before, volumes: [...before.volumes, base].sort() });
  });
});

describe('fault: libvirtd restarted while the app is open', () => {
  const STOPPED = 'egtest-fault-restart-a';
  const INFLIGHT = 'egtest-fault-restart-b';
  let dir: string;
  let base: string;
  let app: Backend | undefined;
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
    await removeLeftovers(sys, [STOPPED, INFLIGHT], [base], dir);
  });

  it('hosts reconnect by themselves, events are subscribed again, no ghost or duplicate rows; the launch in flight fails and rolls back once the daemon is back', async () => {
    const { services, call } = app!;
    // A proxy of this app that is stopped (started with virsh after the restart), and one still coming up.
    const keep = await home().proxies('launch', STOPPED, '--host', 'local', '--allow', '192.168.150.0/24');
    expect(keep.code, keep.stderr).toBe(0);
    virsh('destroy', instanceId(STOPPED));
    const inflight = await call<{ taskId: string }>('proxies:launch', {
      name: INFLIGHT,
      host: 'loop',
      allow: ['192.168.150.0/24'],
    });
    await taskAt(services, inflight.taskId, ['address', 'proxy']);
    const before = await call<FleetListingView>('proxies:list');
    expect(before.proxies.map((p) => p.name).sort()).toEqual([STOPPED, INFLIGHT].sort());
    await waitFor(
      'both hosts connected',
      30_000,
      () =>
        ['local', 'loop'].every((h) => statuses.some((s) => s.name === h && s.state === 'connected'))
          ? true
          : undefined,
      50,
    );

    const restartedAt = Date.now();
    execFileSync('bash', [join(process.cwd(), 'test/env/restart-libvirtd.sh'), '2'], { stdio: 'ignore' });
    // The test's own connection went with the old daemon too.
    await sys.reconnect();

    for (const host of ['local', 'loop']) {
      await waitFor(
        `${host} back to connected by itself`,
        60_000,
        () =>
          statuses.some((s) => s.name === host && s.state === 'connected' && s.at > restartedAt) ? true : undefined,
        50,
      );
      const after = statuses.filter((s) => s.name === host && s.at > restartedAt - 5_000);
      expect(
        after.map((s) => s.state),
        JSON.stringify(after),
      ).toContain('reconnecting');
      expect(after.find((s) => s.state === 'reconnecting')!.message).toMatch(
        /^connection lost: .*reconnecting (in|now)/,
      );
    }

    // The launch in flight failed, naming why; its rollback ran once the daemon was back.
    const failed = await services.app.tasks.wait(inflight.taskId);
    expect(failed.state).toBe('failed');
    expect(failed.error?.message).toMatch(/^launch failed at step "(address|proxy)": /);
    expect(failed.error?.message).not.toMatch(/rollback left behind/);
    await waitFor(
      'the in-flight launch rolled back',
      30_000,
      async () => ((await hypervisorState(await sys.live())).domains.includes(instanceId(INFLIGHT)) ? undefined : true),
      200,
    );

    // Events flow again: a domain started with virsh shows within 2 s.
    const startedAt = Date.now();
    virsh('start', instanceId(STOPPED));
    const started = await waitFor(
      'the STARTED event',
      5_000,
      () => changes.find((c) => c.name === STOPPED && c.event === 'STARTED' && c.at >= startedAt),
      20,
    );
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
    return {
      proxies: (...args: string[]) =>
        runCliProcess(['--config', configFile, 'proxies', ...args], {
          HOME: app!.home,
          EGRESS_DESK_HOME: join(app!.home, 'data'),
        }),
    };
  }
});
