/**
 * `proxies replace` on the real guest image (issue 16): a proxy launched with --wait is
 * paused with libvirt (its proxy stops answering: what auto-replace acts on), then
 * replaced. The new VM boots under the name's second domain name, answers, and only then
 * is the paused one deleted: the name and the credentials are the same (the URL differs at
 * most in the address), HTTP goes through the new one, and nothing of the old one is left
 * (its domain and both its volumes gone). Probed inside the test namespace.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient, findDomainByName } from '../../electron/libvirt/index.js';
import { alternateInstanceId, baseVolumeName, instanceId, instanceVolumes } from '../../electron/services/provider/kvm/names.js';
import { GUEST_PAGE_MARK, fetchThroughProxy, guestConfig, guestImage, namespaceHttpServer } from '../support/guest.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { hypervisorState } from '../support/provider.js';
import { runCliProcess } from '../support/cli.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAME = 'egtest-replace-g';
let client: LibvirtClient;
let server: ChildProcess | undefined;
let home: string;
let config: string;
let sha256: string;

const cli = (...args: string[]) =>
  runCliProcess(['--config', config, 'proxies', ...args], { HOME: home, EGRESS_DESK_HOME: join(home, 'data'), EGRESS_DESK_PROBE_NETNS: env.EGRESS_TEST_NETNS });

beforeAll(async () => {
  const image = guestImage();
  sha256 = image.sha256;
  home = tempDir('egress-replace-g-');
  config = join(home, 'config.yaml');
  writeFileSync(config, guestConfig(env, image));
  client = await systemClient();
  await removeProxy(client, NAME);
  server = namespaceHttpServer(env).child;
}, 20 * 60_000);

afterAll(async () => {
  server?.kill();
  if (client) {
    await removeProxy(client, NAME);
    await client.close();
  }
}, 120_000);

describe('proxies replace on the real guest image', () => {
  it('replaces a paused proxy: same name and credentials, HTTP through the new one, nothing of the old one left', async () => {
    const before = await hypervisorState(client);
    const launched = await cli('launch', NAME, '--wait', '--timeout', '600', '--allow', '192.168.150.0/24');
    expect(launched.code, launched.stderr).toBe(0);
    const oldUrl = launched.stdout.trim();
    const page = `http://${env.EGRESS_TEST_BRIDGE_IP}:18081/index.html`;
    expect(fetchThroughProxy(env, oldUrl, page)).toContain(GUEST_PAGE_MARK);

    execFileSync('virsh', ['-c', `qemu+unix:///system?socket=${env.EGRESS_TEST_SOCKET}`, 'suspend', instanceId(NAME)], { stdio: 'ignore', timeout: 30_000 });
    expect((await cli('list', '--json')).stdout).toContain('"paused"');

    const t0 = Date.now();
    const r = await cli('replace', NAME, '--allow', '192.168.150.0/24', '--timeout', '600');
    console.log(`guest lane: replace took ${((Date.now() - t0) / 1000).toFixed(1)} s\n${r.stderr}`);
    expect(r.code, r.stderr).toBe(0);
    const newUrl = r.stdout.trim();
    const creds = (u: string) => new URL(u).username + ':' + new URL(u).password;
    expect(creds(newUrl)).toBe(creds(oldUrl));
    expect(r.stderr).toMatch(new RegExp(`replaced proxy ${NAME}: now ${alternateInstanceId(NAME)} on local`));
    expect(fetchThroughProxy(env, newUrl, page)).toContain(GUEST_PAGE_MARK);

    // Nothing of the old one: its domain and volumes are gone; the new one has its own.
    expect(await findDomainByName(client, instanceId(NAME))).toBeNull();
    const mid = await hypervisorState(client);
    const base = baseVolumeName(sha256, 'qcow2');
    expect(mid.domains).toEqual([...before.domains, alternateInstanceId(NAME)].sort());
    expect(mid.volumes).toEqual([...new Set([...before.volumes, base, ...Object.values(instanceVolumes(alternateInstanceId(NAME)))])].sort());
    const listed = JSON.parse((await cli('list', '--json')).stdout) as { proxies: Array<{ name: string; id: string; replacing?: string }> };
    expect(listed.proxies.filter((p) => p.name === NAME)).toEqual([expect.objectContaining({ id: alternateInstanceId(NAME) })]);
    expect(listed.proxies.find((p) => p.name === NAME)?.replacing).toBeUndefined();

    const del = await cli('delete', NAME);
    expect(del.code, del.stderr).toBe(0);
    expect((await hypervisorState(client)).domains).toEqual(before.domains);
  }, 25 * 60_000);
});
