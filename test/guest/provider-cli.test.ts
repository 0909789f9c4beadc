/**
 * The guest lane through the CLI: `egress-desk proxies launch --wait` on the real guest
 * image boots a proxy, prints its URL once the port answers (probed inside the test
 * namespace through EGRESS_DESK_PROBE_NETNS), an HTTP request through that URL to a
 * server inside the namespace returns the page, and `proxies delete` leaves the pool and
 * domain list as they were (the shared base volume excepted, kept for later runs).
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { GUEST_PAGE_MARK, fetchThroughProxy, guestConfig, guestImage, namespaceHttpServer } from '../support/guest.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { hypervisorState } from '../support/provider.js';
import { runCliProcess } from '../support/cli.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAME = 'egtest-e2e-1';
let client: LibvirtClient;
let server: ChildProcess | undefined;
let home: string;
let config: string;
let sha256: string;

const state = () => hypervisorState(client);

const cli = (...args: string[]) =>
  runCliProcess(['--config', config, 'proxies', ...args], { HOME: home, EGRESS_DESK_HOME: join(home, 'data'), EGRESS_DESK_PROBE_NETNS: env.EGRESS_TEST_NETNS });

beforeAll(async () => {
  const image = guestImage();
  sha256 = image.sha256;
  home = tempDir('egress-e2e-');
  config = join(home, 'config.yaml');
  writeFileSync(config, guestConfig(env, image));
  client = await systemClient();
  server = namespaceHttpServer(env).child;
}, 20 * 60_000);

afterAll(async () => {
  server?.kill();
  if (client) {
    await removeProxy(client, NAME);
    await client.close();
  }
}, 120_000);

describe('egress-desk proxies launch --wait on the real guest image', () => {
  it('prints a proxy URL that forwards HTTP inside the namespace; delete leaves nothing', async () => {
    const before = await state();
    const base = baseVolumeName(sha256, 'qcow2');
    const t0 = Date.now();
    const r = await cli('launch', NAME, '--wait', '--timeout', '600', '--allow', '192.168.150.0/24');
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(`guest provider lane: launch --wait took ${seconds} s\n${r.stderr}`);
    expect(r.code, r.stderr).toBe(0);
    const url = r.stdout.trim();
    expect(url).toMatch(/^http:\/\/egress:[A-Za-z0-9_-]+@192\.168\.150\.\d+:3128$/);
    expect(r.stderr).toMatch(/address done: 192\.168\.150\.\d+ \(lease\)/);

    expect(fetchThroughProxy(env, url, `http://${env.EGRESS_TEST_BRIDGE_IP}:18081/index.html`)).toContain(GUEST_PAGE_MARK);

    const del = await cli('delete', NAME);
    expect(del.code, del.stderr).toBe(0);
    const after = await state();
    expect(after.domains).toEqual(before.domains);
    expect(after.volumes).toEqual([...new Set([...before.volumes, base])].sort());
  }, 15 * 60_000);
});
