/**
 * Two host entries that reach the same hypervisor (issue 14.1), on the real daemon: a
 * machine with two pools (`one` on the test pool, `two` on a second pool), and the local
 * socket beside the same machine over SSH. A proxy belongs to the entry its metadata names;
 * its volumes are where its domain XML says. Listing shows it once, reconcile --fix leaves
 * it (and its credentials) alone, delete removes the volumes it really has.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient, findDomainByName, listAllVolumes } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId, instanceVolumes } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { type ProviderHome, providerHome, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAME = 'egtest-twin';
/** A second proxy, on the second entry (its pool). */
const NAME2 = 'egtest-twin-b';
/** A second pool on the same machine, named so that test/env/down.sh removes it. */
const FAST = 'egtest-fast';
let client: LibvirtClient;
let home: string;
let image: { path: string; sha256: string };

const hostLine = (name: string, pool: string) =>
  `{ name: ${name}, address: local, pool: ${pool}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;
const sshLine = (name: string, pool: string) =>
  `{ name: ${name}, address: 127.0.0.1, sshPort: ${env.EGRESS_TEST_SSH_PORT}, sshUser: root, identityFile: ${env.EGRESS_TEST_SSH_KEY}, pool: ${pool}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;

/** A home whose config has `first` as its host list's first line and `others` after it. */
function twinHome(prefix: string, first: string, ...others: string[]): ProviderHome {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, '.ssh'), { recursive: true, mode: 0o700 });
  copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(dir, '.ssh', 'known_hosts'));
  return providerHome(prefix, {
    home: dir,
    host: [first, ...others].join('\n    - '),
    machineType: 'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
    image: { name: 'tiny', ...image },
  });
}

function virsh(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync('virsh', ['-q', '-c', 'qemu:///system', ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr };
}

async function volumesOf(pool: string): Promise<string[]> {
  const ref = await client.call('STORAGE_POOL_LOOKUP_BY_NAME', { name: pool });
  await client.call('STORAGE_POOL_REFRESH', { pool: ref, flags: 0 });
  return (await listAllVolumes(client, ref)).map((v) => v.name);
}

beforeAll(async () => {
  home = tempDir('egress-twin-');
  image = tinyImage(home);
  client = await systemClient();
  // Pool set-up is not what is tested, and the RPC client knows only the calls the app needs: virsh does it.
  virsh('pool-destroy', FAST);
  virsh('pool-undefine', FAST);
  virsh('pool-define-as', FAST, 'dir', '--target', join(env.EGRESS_TEST_STATE, 'pool-fast'));
  virsh('pool-build', FAST);
  expect(virsh('pool-start', FAST).status).toBe(0);
});

afterAll(async () => {
  if (!client) return;
  await removeProxy(client, NAME2);
  await removeProxy(client, NAME, [baseVolumeName(image.sha256, 'qcow2')]);
  for (const v of await volumesOf(FAST).catch(() => [])) virsh('vol-delete', '--pool', FAST, v);
  virsh('pool-destroy', FAST);
  virsh('pool-undefine', FAST);
  await client.close();
});

describe('two host entries on one hypervisor', () => {
  it('one machine, two pools, a proxy on each: listed once, under its own entry; reconcile --fix leaves both healthy proxies alone; delete removes their real volumes', async () => {
    const twin = twinHome('egress-twin-pools-', hostLine('one', env.EGRESS_TEST_POOL), hostLine('two', FAST));
    const cli = twin.proxies;
    const launched = await cli('launch', NAME, '--host', 'one', '--allow', '192.168.150.0/24', '--json');
    expect(launched.stderr).toBe('');
    expect(launched.code).toBe(0);
    const id = instanceId(NAME);
    const vols = Object.values(instanceVolumes(id));
    expect(await volumesOf(env.EGRESS_TEST_POOL)).toEqual(expect.arrayContaining(vols));
    const second = await cli('launch', NAME2, '--host', 'two', '--allow', '192.168.150.0/24', '--json');
    expect(second.code, second.stderr).toBe(0);
    const id2 = instanceId(NAME2);
    const vols2 = Object.values(instanceVolumes(id2));
    expect(await volumesOf(FAST)).toEqual(expect.arrayContaining(vols2));

    const list = JSON.parse((await cli('list', '--json')).stdout) as {
      proxies: Array<{ name: string; host: string }>;
      hosts: Array<{ host: string; ok: boolean; sameAs?: string }>;
    };
    expect(list.proxies.filter((p) => p.name === NAME)).toEqual([expect.objectContaining({ name: NAME, host: 'one' })]);
    expect(list.proxies.filter((p) => p.name === NAME2)).toEqual([
      expect.objectContaining({ name: NAME2, host: 'two' }),
    ]);
    expect(list.hosts.find((h) => h.host === 'two')).toMatchObject({ ok: true, sameAs: 'one' });

    const report = JSON.parse((await cli('reconcile', '--json')).stdout) as { findings: Array<{ object: string }> };
    expect(report.findings.filter((f) => [id, id2, NAME, NAME2].some((x) => f.object.includes(x)))).toEqual([]);

    const fixed = await cli('reconcile', '--fix', '--json');
    expect(fixed.code).toBe(0);
    for (const i of [id, id2]) {
      const dom = await findDomainByName(client, i);
      expect(dom).not.toBeNull();
      expect((await client.call('DOMAIN_GET_STATE', { dom: dom!, flags: 0 })).state).toBe(1); // still running
    }
    expect(await volumesOf(env.EGRESS_TEST_POOL)).toEqual(expect.arrayContaining(vols));
    expect(await volumesOf(FAST)).toEqual(expect.arrayContaining(vols2));
    expect(
      Object.keys(
        (JSON.parse(readFileSync(join(twin.home, 'data', 'credentials.json'), 'utf8')) as { proxies: object }).proxies,
      ),
    ).toEqual(expect.arrayContaining([NAME, NAME2]));

    const del = await cli('delete', NAME);
    expect(del.code).toBe(0);
    expect(del.stdout).toMatch(/on one:/);
    expect(await findDomainByName(client, id)).toBeNull();
    const del2 = await cli('delete', NAME2);
    expect(del2.stdout).toMatch(/on two:/);
    const left = [...(await volumesOf(env.EGRESS_TEST_POOL)), ...(await volumesOf(FAST))];
    expect(left.filter((v) => vols.includes(v) || vols2.includes(v))).toEqual([]);
  });

  it('this machine over SSH (listed first) and locally, each with its own pool: delete removes the volumes where they are', async () => {
    {
      const cli = twinHome('egress-twin-ssh-', sshLine('loop', FAST), hostLine('local', env.EGRESS_TEST_POOL)).proxies;
      const launched = await cli('launch', NAME, '--host', 'local', '--allow', '192.168.150.0/24', '--json');
      expect(launched.stderr).toBe('');
      expect(launched.code).toBe(0);
      const id = instanceId(NAME);
      const vols = Object.values(instanceVolumes(id));
      const list = JSON.parse((await cli('list', '--json')).stdout) as {
        proxies: Array<{ name: string; host: string }>;
      };
      expect(list.proxies.filter((p) => p.name === NAME)).toEqual([expect.objectContaining({ host: 'local' })]);
      // The SSH entry answers first (it is first in the config): the proxy is still the local entry's.
      const del = await cli('delete', NAME);
      expect(del.code).toBe(0);
      expect(del.stdout).toMatch(/on local:/);
      expect(await findDomainByName(client, id)).toBeNull();
      expect((await volumesOf(env.EGRESS_TEST_POOL)).filter((v) => vols.includes(v))).toEqual([]);
    }
  });
});
