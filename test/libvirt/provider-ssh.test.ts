/**
 * The provider on a host reached over SSH (the test sshd on 127.0.0.1): launch uploads the
 * base through the SSH connection, list and inspect read it back, delete removes it, and
 * the pool and domain list end as they were.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, removeVolumes, systemClient } from '../support/libvirt.js';
import { type ProviderHome, hypervisorState, providerHome, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAME = 'egtest-prov-ssh';
let client: LibvirtClient;
let home: string;
let sha256: string;
let cli: ProviderHome['proxies'];
const state = () => hypervisorState(client);

beforeAll(async () => {
  home = tempDir('egress-provider-ssh-');
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(home, '.ssh', 'known_hosts'));
  const image = tinyImage(home);
  sha256 = image.sha256;
  cli = providerHome('egress-provider-ssh-', {
    home,
    host: `{ name: loop, address: 127.0.0.1, sshPort: ${env.EGRESS_TEST_SSH_PORT}, sshUser: root, identityFile: ${env.EGRESS_TEST_SSH_KEY}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`,
    machineType: 'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
    image: { name: 'tiny', ...image },
  }).proxies;
  client = await systemClient();
});

afterAll(async () => {
  if (!client) return;
  await removeProxy(client, NAME, [baseVolumeName(sha256, 'qcow2')]);
  await client.close();
});

describe('provider over SSH', () => {
  it('launch → list → inspect → delete on an SSH host', async () => {
    const before = await state();
    const launched = await cli('launch', NAME, '--allow', '192.168.150.0/24', '--json');
    expect(launched.stderr).toBe('');
    expect(launched.code).toBe(0);
    expect(JSON.parse(launched.stdout)).toMatchObject({ created: true, proxy: { id: instanceId(NAME), host: 'loop' } });
    expect((await state()).domains).toContain(instanceId(NAME));

    const listing = JSON.parse((await cli('list', '--json')).stdout) as {
      proxies: Array<{ name: string; host: string }>;
      hosts: Array<{ host: string; ok: boolean }>;
    };
    expect(listing.proxies).toEqual([expect.objectContaining({ name: NAME, host: 'loop' })]);
    expect(listing.hosts).toEqual([expect.objectContaining({ host: 'loop', ok: true, proxies: 1 })]);

    const inspect = JSON.parse((await cli('inspect', NAME, '--json')).stdout) as { metadata: { host: string } };
    expect(inspect.metadata.host).toBe('loop');

    expect((await cli('delete', NAME)).code).toBe(0);
    await removeVolumes(client, [baseVolumeName(sha256, 'qcow2')]);
    expect(await state()).toEqual(before);
  });

  it('an unknown host key stops the launch before anything is created, naming the fingerprint', async () => {
    const before = await state();
    writeFileSync(join(home, '.ssh', 'known_hosts'), '');
    const r = await cli('launch', NAME, '--allow', '192.168.150.0/24');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(env.EGRESS_TEST_HOST_KEY_SHA256);
    expect(await state()).toEqual(before);
    copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(home, '.ssh', 'known_hosts'));
  });
});
