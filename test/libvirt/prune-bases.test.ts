/**
 * `images prune --hosts` on the real daemon (issue 15, "Time"): base volumes were never
 * garbage-collected. A base that a proxy's overlay backs onto is never removed; one just
 * written is left alone (an upload, or a launch in another process about to use it); an
 * old one nothing uses is shown, then removed after the person says yes.
 */
import { execFileSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, removeVolumes, systemClient } from '../support/libvirt.js';
import { type ProviderHome, hypervisorState, localProviderHome, tinyImage } from '../support/provider.js';
import { runCliProcess } from '../support/cli.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAME = 'egtest-prune';
let client: LibvirtClient;
let home: string;
let config: string;
let base: string;
/** A base volume name no image of this test has (a digest of its own). */
const stale = baseVolumeName('e'.repeat(63) + String(process.pid % 10), 'qcow2');
let proxies: ProviderHome['proxies'];
const images = (...args: string[]) =>
  runCliProcess(['--config', config, 'images', ...args], { HOME: home, EGRESS_DESK_HOME: join(home, 'data') });

interface PruneJson {
  unused: Array<{ volume: string }>;
  removed: Array<{ volume: string }>;
  kept: Array<{ volume: string; why: string }>;
}

beforeAll(async () => {
  home = tempDir('egress-prune-');
  const image = tinyImage(home);
  base = baseVolumeName(image.sha256, 'qcow2');
  const made = localProviderHome(env, 'egress-prune-', home, { name: 'tiny', ...image });
  config = made.config;
  proxies = made.proxies;
  client = await systemClient();
});

afterAll(async () => {
  if (!client) return;
  await removeProxy(client, NAME, [base, stale]);
  await client.close();
});

describe('images prune --hosts', () => {
  it('keeps a base in use and a young one; removes an old unused one after yes', async () => {
    expect((await proxies('launch', NAME, '--allow', '192.168.150.0/24')).code).toBe(0);
    const inUse = JSON.parse((await images('prune', '--hosts', '--dry-run', '--json')).stdout) as PruneJson;
    expect(inUse.unused.map((u) => u.volume)).not.toContain(base);
    expect(inUse.kept.find((k) => k.volume === base)?.why).toMatch(/^backs volume /);

    expect((await proxies('delete', NAME)).code).toBe(0);
    // An old unused base beside it: the yes removes that one, and the report still names
    // the young one as kept (it once listed only what the second look kept of the removed).
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', join(env.EGRESS_TEST_POOL_DIR, stale), '1M']);
    utimesSync(
      join(env.EGRESS_TEST_POOL_DIR, stale),
      new Date(Date.now() - 3_600_000),
      new Date(Date.now() - 3_600_000),
    );
    const young = JSON.parse((await images('prune', '--hosts', '--yes', '--json')).stdout) as PruneJson;
    expect(young.kept.find((k) => k.volume === base)?.why).toMatch(/^written \d+ s ago/);
    expect(young.removed.map((r) => r.volume)).toContain(stale);
    expect((await hypervisorState(client)).volumes).not.toContain(stale);
    expect((await hypervisorState(client)).volumes).toContain(base);

    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(env.EGRESS_TEST_POOL_DIR, base), hourAgo, hourAgo);
    // No terminal and no --yes: asked, end of input is no; nothing removed.
    const asked = await images('prune', '--hosts');
    expect(asked.stderr).toMatch(new RegExp(`unused: local  ${env.EGRESS_TEST_POOL}/${base}`));
    expect(asked.stderr).toMatch(/remove \d+ base volume\(s\)/);
    expect((await hypervisorState(client)).volumes).toContain(base);
    const removed = await images('prune', '--hosts', '--yes');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`removed local  ${env.EGRESS_TEST_POOL}/${base}`);
    expect((await hypervisorState(client)).volumes).not.toContain(base);
    await removeVolumes(client, [base]);
  });
});
