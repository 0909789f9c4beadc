/**
 * The fault lane (issue 15, "Faults"), resources missing: each fault injected for real on
 * the test environment's own components, and what a person sees and what is left behind
 * checked on the real daemon. docs/reliability.md has the table of faults and the tests
 * that prove them; the other faults are in faults-connections.test.ts and
 * faults-bad-input.test.ts.
 *
 * - a pool without room (a small tmpfs mounted inside libvirtd's own mount namespace);
 * - the host's network gone (`virsh net-destroy`);
 * - the workstation's disk full during an image download (a small tmpfs as the cache).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import type { FleetListingView } from '../../shared/proxies.js';
import { removeProxy } from '../support/libvirt.js';
import { TINY_MACHINE_TYPE, hypervisorState, localTestHost, providerHome, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { runCliProcess } from '../support/cli.js';
import { TestServer, generatedFile } from '../unit/images/server.js';
import { tempDir } from '../support/temp-dir.js';
import { removeLeftovers, useSystemClient, virsh } from './fault-support.js';

const env = testEnv();
const sys = useSystemClient();

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
      machineType: TINY_MACHINE_TYPE,
      image: { name: 'tiny', ...image },
    });
  });

  afterAll(async () => {
    await removeProxy(await sys.live(), NAME);
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
    const domainsBefore = (await hypervisorState(await sys.live())).domains;
    const asked = await home.proxies('launch', NAME, '--host', 'small');
    expect(asked.code, asked.stderr).toBe(1);
    expect(asked.stderr).toMatch(
      /launch failed at step "place": small: pool egtest-fault-small has \d+(\.\d)? MiB \(\d+ bytes\) free, the proxy's disk may grow to 1\.0 GiB \(1073741824 bytes\)/,
    );
    const placed = await home.proxies('launch', NAME);
    expect(placed.code, placed.stderr).toBe(1);
    expect(placed.stderr).toMatch(
      /no host can take the proxy: small: pool egtest-fault-small has \d+(\.\d)? MiB \(\d+ bytes\) free, the disk needs 1\.0 GiB \(1073741824 bytes\)/,
    );
    expect(asked.stderr + placed.stderr).not.toMatch(/\n\s+at /);
    expect(virsh('vol-list', POOL)).toBe(volumesBefore);
    expect((await hypervisorState(await sys.live())).domains).toEqual(domainsBefore);
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
      host: localTestHost(env),
      machineType: TINY_MACHINE_TYPE,
      image: { name: 'tiny', ...image },
    });
  });

  afterAll(async () => {
    // The network comes back for the lanes after this one, whatever happened here.
    if (!virsh('net-list', '--name').split('\n').includes(env.EGRESS_TEST_NETWORK))
      virsh('net-start', env.EGRESS_TEST_NETWORK);
    await removeLeftovers(sys, [RUNNING, REFUSED], [base], dir);
  });

  it('launch refuses with the reason and creates nothing; listing still works and says why addresses are unknown', async () => {
    const up = await home.proxies('launch', RUNNING, '--allow', '192.168.150.0/24');
    expect(up.code, up.stderr).toBe(0);
    virsh('net-destroy', env.EGRESS_TEST_NETWORK);
    const before = await hypervisorState(await sys.live());

    const refused = await home.proxies('launch', REFUSED, '--host', 'local', '--allow', '192.168.150.0/24');
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(
      `launch failed at step "place": local: network ${env.EGRESS_TEST_NETWORK} is not active (start it with virsh net-start ${env.EGRESS_TEST_NETWORK}, or choose another host)`,
    );
    const placed = await home.proxies('launch', REFUSED, '--allow', '192.168.150.0/24');
    expect(placed.code, placed.stderr).toBe(1);
    expect(placed.stderr).toContain(
      `no host can take the proxy: local: network ${env.EGRESS_TEST_NETWORK} is not active`,
    );
    expect(await hypervisorState(await sys.live())).toEqual(before);

    const listed = await home.proxies('list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const listing = JSON.parse(listed.stdout) as FleetListingView;
    const proxy = listing.proxies.find((p) => p.name === RUNNING);
    expect(proxy).toMatchObject({
      state: 'running',
      addresses: [],
      addressNote: `addresses unknown: network ${env.EGRESS_TEST_NETWORK} is not active (virsh net-start ${env.EGRESS_TEST_NETWORK})`,
    });
    const text = await home.proxies('list');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(RUNNING);
    expect(text.stderr).toContain(
      `proxy ${RUNNING}: addresses unknown: network ${env.EGRESS_TEST_NETWORK} is not active`,
    );

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
      host: localTestHost(env),
      machineType: TINY_MACHINE_TYPE,
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
    const images = (...args: string[]) =>
      runCliProcess(['--config', home.config, 'images', ...args], { HOME: dir, EGRESS_DESK_HOME: join(dir, 'data') });
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
    const errors = full.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('egress-desk:'));
    expect(errors, full.stderr).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^egress-desk: the disk holding the image cache is full \(ENOSPC\) while writing .*\.partial: the \d+ bytes downloaded so far are kept; free space there .* and pull again to resume$/,
    );
    expect(full.stderr).not.toMatch(/\n\s+at /);
    const partial = readdirSync(cacheDir).find((f) => f === `${big.sha256}.partial`);
    expect(partial, readdirSync(cacheDir).join(', ')).toBeDefined();
    const kept = statSync(join(cacheDir, partial!)).size;
    expect(kept).toBeGreaterThan(0);
    // The image already cached is whole.
    const cached = readdirSync(cacheDir).find(
      (f) => f.startsWith(small.sha256) && !f.includes('.partial') && !f.endsWith('.lock'),
    );
    expect(cached, readdirSync(cacheDir).join(', ')).toBeDefined();
    expect(
      createHash('sha256')
        .update(readFileSync(join(cacheDir, cached!)))
        .digest('hex'),
    ).toBe(small.sha256);

    execFileSync('mount', ['-o', 'remount,size=96m', cacheDir]);
    const resumed = await images('pull', 'big', '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ name: 'big', sha256: big.sha256 });
    const ranges = server
      .requestsFor('/big.qcow2')
      .map((r) => r.headers.range)
      .filter(Boolean);
    expect(ranges.at(-1)).toMatch(/^bytes=\d+-$/);
    expect(Number(/^bytes=(\d+)-$/.exec(ranges.at(-1)!)![1])).toBeGreaterThan(0);
  });
});
