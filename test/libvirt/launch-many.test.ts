/**
 * `proxies launch --count 3 --strategy spread` over two host entries on the real daemon
 * (issue 16): the test hypervisor through its socket (`local`) and through the test sshd
 * (`loop`). Spread puts one on each host before a second on either, so the first two land
 * on different entries and the third on one of them; each proxy is listed under the entry
 * that launched it, runs, and carries the batch's label; `delete -l` removes all three and
 * leaves nothing behind.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient, findDomainByName } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import type { FleetListingView } from '../../shared/proxies.js';
import {
  hypervisorState,
  localTestHost,
  providerHome,
  type ProviderHome,
  tinyImage,
  TINY_MACHINE_TYPE,
} from '../support/provider.js';
import { removeProxy, removeVolumes, systemClient } from '../support/libvirt.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAMES = ['egtest-many-1', 'egtest-many-2', 'egtest-many-3'] as const;
/** The batch's label: this run's, so a leftover of another run is never selected. */
const BATCH = `batch=run${process.pid}`;
let client: LibvirtClient;
let sha256: string;
let cli: ProviderHome['proxies'];
let before: { volumes: string[]; domains: string[] };

beforeAll(async () => {
  const dir = tempDir('egress-many-');
  mkdirSync(join(dir, '.ssh'), { recursive: true, mode: 0o700 });
  copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(dir, '.ssh', 'known_hosts'));
  const image = tinyImage(dir);
  sha256 = image.sha256;
  const loop = `{ name: loop, address: 127.0.0.1, sshPort: ${env.EGRESS_TEST_SSH_PORT}, sshUser: root, identityFile: ${env.EGRESS_TEST_SSH_KEY}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;
  cli = providerHome('egress-many-', {
    home: dir,
    host: [localTestHost(env), loop].join('\n    - '),
    machineType: TINY_MACHINE_TYPE,
    image: { name: 'tiny', ...image },
  }).proxies;
  client = await systemClient();
  for (const n of NAMES) await removeProxy(client, n);
  before = await hypervisorState(client);
});

afterAll(async () => {
  if (!client) return;
  for (const n of NAMES) await removeProxy(client, n);
  await removeVolumes(client, [baseVolumeName(sha256, 'qcow2')]);
  await client.close();
});

describe('launch many over two hosts', () => {
  it('--count 3 --strategy spread: one per host first, each listed under its entry and running; delete -l removes the batch', async () => {
    const launched = await cli(
      'launch',
      'egtest-many-{n}',
      '--count',
      '3',
      '--strategy',
      'spread',
      '--label',
      BATCH,
      '--allow',
      '192.168.150.0/24',
      '--json',
    );
    expect(launched.code, launched.stderr).toBe(0);
    const outcomes = JSON.parse(launched.stdout) as { name: string; host: string; ok: boolean }[];
    expect(outcomes.map((o) => o.name).sort()).toEqual([...NAMES]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const hostOf = new Map(outcomes.map((o) => [o.name, o.host]));
    // Spread: the first two names on different entries, then the third on either.
    expect(hostOf.get(NAMES[0])).not.toBe(hostOf.get(NAMES[1]));
    expect(new Set(hostOf.values())).toEqual(new Set(['local', 'loop']));

    const list = await cli('list', '--json', '-l', BATCH);
    expect(list.code, list.stderr).toBe(0);
    const listed = (JSON.parse(list.stdout) as FleetListingView).proxies;
    expect(listed.map((p) => p.name).sort()).toEqual([...NAMES]);
    for (const p of listed) {
      expect(p.host).toBe(hostOf.get(p.name));
      expect(p.state).toBe('running');
      expect(p.labels).toMatchObject({ batch: BATCH.split('=')[1] });
      expect(await findDomainByName(client, instanceId(p.name))).toBeTruthy();
    }

    const deleted = await cli('delete', '-l', BATCH, '--yes');
    expect(deleted.code, deleted.stderr).toBe(0);
    for (const n of NAMES) expect(await findDomainByName(client, instanceId(n))).toBeFalsy();
    // Nothing of the batch is left: the same domains and volumes as before, plus the shared base.
    const after = await hypervisorState(client);
    expect(after.domains).toEqual(before.domains);
    expect(after.volumes.filter((v) => v !== baseVolumeName(sha256, 'qcow2'))).toEqual(
      before.volumes.filter((v) => v !== baseVolumeName(sha256, 'qcow2')),
    );
  });
});
