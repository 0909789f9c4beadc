/**
 * A workstation user is not root. The built CLI runs as the test environment's non-root
 * users (test/env/users.sh), from homes of their own:
 * - a member of the libvirt group reaches qemu:///system through polkit (the daemon asks
 *   for AUTH_POLKIT; Debian's rule admits the group) and launches, lists, inspects and
 *   deletes a proxy, locally and on a host reached over SSH as a non-root SSH user (with the
 *   base image uploaded into the pool through that connection); what its runs write is its
 *   own, 0600/0700;
 * - someone outside the group, a missing socket, a refused one and one without permission
 *   each get one message that says what to do, exit 1, and no stack trace.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostStatus } from '../../shared/hosts.js';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, removeVolumes, systemClient } from '../support/libvirt.js';
import { hypervisorState, providerHome, tinyImage } from '../support/provider.js';
import { type CliResult, type RunAs, runCliProcess } from '../support/cli.js';
import { testEnv } from '../support/env.js';
import { cliBin, repoRoot } from '../support/dist.js';
import { checkoutView, cliBinFor } from '../support/user-checkout.js';
import { foreignOrOpenEntries, giveTo, testUsers, userHome } from '../support/users.js';

const env = testEnv();
const { member, outsider } = testUsers(env);
const LOCAL = 'egtest-nonroot-local';
const REMOTE = 'egtest-nonroot-ssh';
/** A line of a JavaScript stack trace. */
const STACK = /^\s+at /m;
const MACHINE = 'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }';
const localHost = (socketPath = env.EGRESS_TEST_SOCKET) =>
  `{ name: local, address: local, socketPath: ${socketPath}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;
const sshHost = (user: { name: string; sshKey: string }) =>
  `{ name: loop, address: 127.0.0.1, sshPort: ${env.EGRESS_TEST_SSH_PORT}, sshUser: ${user.name}, identityFile: ${user.sshKey}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;

let client: LibvirtClient;
const bases = new Set<string>();
const state = () => hypervisorState(client);

let images = 0;

/**
 * A home of `user`'s own with a one-host config and a tiny image in it. Each image has a
 * size (so a digest, so a base volume) of its own: the launches here upload their base, and
 * cleaning up never removes a base another test file uses.
 */
function homeFor(user: RunAs, host: string) {
  const home = userHome(user, 'egress-nonroot-');
  const image = tinyImage(home, 16 * 1024 + 1 + (process.pid % 1000) * 16 + images++);
  giveTo(user, image.path);
  bases.add(baseVolumeName(image.sha256, 'qcow2'));
  const p = providerHome('', { home, host, machineType: MACHINE, image: { name: 'tiny', ...image }, as: user });
  const hosts = async (...args: string[]): Promise<CliResult & { statuses: HostStatus[] }> => {
    const r = await runCliProcess(
      ['--config', p.config, ...args, 'hosts', 'status', '--json'],
      { HOME: home, EGRESS_DESK_HOME: join(home, 'data') },
      undefined,
      user,
    );
    return { ...r, statuses: JSON.parse(r.stdout) as HostStatus[] };
  };
  return { ...p, image, hosts };
}

/** The known_hosts of the test environment, as the user's own ~/.ssh/known_hosts. */
function trustTestSshd(user: RunAs, home: string): void {
  const file = join(home, '.ssh', 'known_hosts');
  copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, file);
  chmodSync(file, 0o600);
  giveTo(user, file);
}

/** A unix socket file nobody listens on (bound, never listening: connect() is refused), with `mode`. */
function deadSocket(path: string, mode: number): void {
  execFileSync('python3', ['-c', 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', path]);
  chmodSync(path, mode);
}

/** One message on stderr, no trace, exit 1. */
function expectOneMessage(r: CliResult, message: RegExp): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(STACK);
  expect(r.stderr).not.toMatch(/--verbose for details/);
}

/** `proxies launch NAME --allow … --json` in `h`, as its user: exit 0, nothing on stderr, a new proxy on `host`. */
async function expectLaunched(h: ReturnType<typeof homeFor>, name: string, host: string): Promise<void> {
  const launched = await h.proxies('launch', name, '--allow', '192.168.150.0/24', '--json');
  expect(launched.stderr).toBe('');
  expect(launched.code).toBe(0);
  expect(JSON.parse(launched.stdout)).toMatchObject({ created: true, proxy: { id: instanceId(name), host } });
}

beforeAll(async () => {
  client = await systemClient();
});

afterAll(async () => {
  if (!client) return;
  await removeProxy(client, LOCAL);
  await removeProxy(client, REMOTE);
  await removeVolumes(client, [...bases]);
  await client.close();
});

describe('the build the users run', () => {
  // A checkout inside a directory only root may enter (/root, `mktemp -d`) is closed to the
  // users: they run it through a read-only view under the state directory (test/env/checkout.sh).
  it("is this checkout's, through a read-only view under the state directory that every user can reach", () => {
    const view = checkoutView();
    expect(dirname(view)).toBe(env.EGRESS_TEST_CHECKOUTS);
    const bin = cliBinFor(member);
    expect(bin).toBe(join(view, relative(repoRoot, cliBin)));
    expect(bin).not.toBe(cliBin);
    expect(statSync(bin).ino).toBe(statSync(cliBin).ino);
    expect(cliBinFor(outsider)).toBe(bin);
    expect(() => writeFileSync(join(view, '.egtest-probe'), '')).toThrow(/EROFS/);
    // Every directory on the way is open to others, whatever the checkout's own parents are.
    for (let d = dirname(view); d !== dirname(d); d = dirname(d)) expect(statSync(d).mode & 0o001, d).toBe(0o001);
  });
});

describe('a member of the libvirt group (polkit)', () => {
  it('hosts status connects to qemu:///system through AUTH_POLKIT (root is never asked)', async () => {
    const h = homeFor(member, localHost());
    const r = await h.hosts('--verbose');
    expect(r.code, r.stderr).toBe(0);
    expect(r.statuses).toEqual([expect.objectContaining({ name: 'local', state: 'connected' })]);
    expect(r.statuses[0]!.info?.pools.map((p) => p.name)).toContain(env.EGRESS_TEST_POOL);
    expect(r.stderr).toMatch(/local: libvirtd asks polkit to authorise this user \(AUTH_POLKIT\)/);
    // The same command as root: the daemon trusts uid 0 without polkit, so the line is missing.
    const asRoot = await runCliProcess(['--config', h.config, '--verbose', 'hosts', 'status', '--json'], {
      HOME: h.home,
      EGRESS_DESK_HOME: join(h.home, 'root-data'),
    });
    expect(asRoot.code, asRoot.stderr).toBe(0);
    expect(asRoot.stderr).not.toMatch(/AUTH_POLKIT/);
  });

  it('launch → list → inspect → delete on the local socket; the data directory and credentials are theirs', async () => {
    const h = homeFor(member, localHost());
    const before = await state();
    await expectLaunched(h, LOCAL, 'local');
    expect((await state()).domains).toContain(instanceId(LOCAL));

    const listing = JSON.parse((await h.proxies('list', '--json')).stdout) as {
      proxies: Array<{ name: string; host: string }>;
      hosts: Array<{ ok: boolean }>;
    };
    expect(listing.proxies.filter((p) => p.name === LOCAL)).toEqual([
      expect.objectContaining({ name: LOCAL, host: 'local' }),
    ]);
    expect(listing.hosts).toEqual([expect.objectContaining({ ok: true })]);
    const inspect = await h.proxies('inspect', LOCAL, '--json');
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(JSON.parse(inspect.stdout)).toMatchObject({
      metadata: { name: LOCAL, host: 'local' },
      hasCredentials: true,
    });

    const data = join(h.home, 'data');
    expect(existsSync(join(data, 'credentials.json'))).toBe(true);
    expect(foreignOrOpenEntries(data, member.uid)).toEqual([]);

    const del = await h.proxies('delete', LOCAL);
    expect(del.code, del.stderr).toBe(0);
    const after = await state();
    expect(after.domains).toEqual(before.domains);
    expect(foreignOrOpenEntries(data, member.uid)).toEqual([]);
  });

  it('on a host reached over SSH as a non-root user in its libvirt group: the base is uploaded, launch and delete work', async () => {
    const h = homeFor(member, sshHost(member));
    const base = baseVolumeName(h.image.sha256, 'qcow2');
    trustTestSshd(member, h.home);
    const before = await state();
    expect(before.volumes).not.toContain(base);

    await expectLaunched(h, REMOTE, 'loop');
    const mid = await state();
    expect(mid.volumes).toContain(base);
    expect(mid.domains).toContain(instanceId(REMOTE));

    const listing = JSON.parse((await h.proxies('list', '--json')).stdout) as {
      proxies: Array<{ name: string; host: string }>;
    };
    expect(listing.proxies.filter((p) => p.name === REMOTE)).toEqual([expect.objectContaining({ host: 'loop' })]);
    const del = await h.proxies('delete', REMOTE);
    expect(del.code, del.stderr).toBe(0);
    expect((await state()).domains).toEqual(before.domains);

    expect(foreignOrOpenEntries(join(h.home, 'data'), member.uid)).toEqual([]);
    expect(foreignOrOpenEntries(join(h.home, '.ssh'), member.uid)).toEqual([]);
    expect(statSync(join(h.home, '.ssh', 'known_hosts')).uid).toBe(member.uid);
  });
});

describe('what a user without access is told', () => {
  it('outside the libvirt group: hosts status says to join it and log in again', async () => {
    const h = homeFor(outsider, localHost());
    const r = await h.hosts();
    expect(r.code).toBe(1);
    expect(r.statuses[0]).toMatchObject({
      state: 'auth-needed',
      message: expect.stringContaining(`refused your user ${outsider.name}`),
    });
    expect(r.statuses[0]!.message).toContain(
      `Join the libvirt group (sudo usermod -aG libvirt ${outsider.name}) and log in again`,
    );
  });

  it('outside the libvirt group: launch fails with one message naming the host, and creates nothing', async () => {
    const h = homeFor(outsider, localHost());
    const before = await state();
    const r = await h.proxies('launch', LOCAL, '--allow', '192.168.150.0/24');
    expectOneMessage(
      r,
      new RegExp(`libvirt on local \\(this machine, .*\\) refused your user ${outsider.name} .*Join the libvirt group`),
    );
    expect(r.stdout).toBe('');
    expect(await state()).toEqual(before);
  });

  it('a socket that does not exist: says what to install or which socket to use', async () => {
    const h = homeFor(outsider, localHost('/nonexistent/libvirt/libvirt-sock'));
    const status = await h.hosts();
    expect(status.code).toBe(1);
    expect(status.statuses[0]).toMatchObject({
      state: 'error',
      message: expect.stringMatching(
        /\/nonexistent\/libvirt\/libvirt-sock does not exist: install libvirt-daemon-system/,
      ),
    });
    expectOneMessage(
      await h.proxies('launch', LOCAL, '--allow', '192.168.150.0/24'),
      /\/nonexistent\/libvirt\/libvirt-sock does not exist/,
    );
  });

  it('a socket nobody listens on: says the daemon is not running', async () => {
    const home = userHome(outsider, 'egress-nonroot-sock-');
    const socket = join(home, 'refused-sock');
    deadSocket(socket, 0o777);
    const h = homeFor(outsider, localHost(socket));
    expectOneMessage(await h.proxies('list'), /refused the connection: the daemon is not running/);
  });

  it('a socket this user may not open: says to join the libvirt group and log in again', async () => {
    const home = userHome(outsider, 'egress-nonroot-sock-');
    const socket = join(home, 'root-only-sock');
    deadSocket(socket, 0o700);
    const h = homeFor(outsider, localHost(socket));
    expectOneMessage(
      await h.proxies('launch', LOCAL, '--allow', '192.168.150.0/24'),
      /permission denied on libvirt's socket .*join the libvirt group.*log in again/,
    );
  });

  it('an SSH user outside the remote libvirt group: the message names the host and the user', async () => {
    const h = homeFor(outsider, sshHost(outsider));
    trustTestSshd(outsider, h.home);
    const before = await state();
    const status = await h.hosts();
    expect(status.code).toBe(1);
    expect(status.statuses[0]).toMatchObject({
      state: 'auth-needed',
      message: expect.stringContaining(`libvirt on loop (127.0.0.1) refused SSH user ${outsider.name}`),
    });
    const r = await h.proxies('launch', REMOTE, '--allow', '192.168.150.0/24');
    expectOneMessage(
      r,
      new RegExp(
        `libvirt on loop \\(127\\.0\\.0\\.1\\) refused SSH user ${outsider.name} .*add ${outsider.name} to the libvirt group`,
      ),
    );
    expect(await state()).toEqual(before);
  });
});
