/**
 * `images prune --hosts` and baked base volumes (issue 12, "old baked volumes are pruned
 * like base volumes"): a change to what is baked changes the recipe hash, so the baked
 * volume of the old recipe is never chosen by a launch again. Here, for the config's own
 * image, the pool holds a baked volume of an old recipe and one of the current recipe
 * (`launchRecipe()`), both written an hour ago; a launch backs onto the current one (the
 * plan's `base` step names it), and prune removes the old one and keeps the current one
 * because that proxy's overlay backs onto it.
 *
 * What prune promises is use, not recency of the recipe (base-prune.ts): the current
 * recipe's volume is kept while a volume backs onto it (or a domain names it, or it was
 * written in the last 15 minutes), and once its proxies are gone it is unused like any
 * plain base, which the last step shows in a dry run. The volumes are empty qcow2 files
 * named as a bake names them: prune judges names and backing stores, never contents.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import {
  bakedVolumeName,
  parseBakedVolumeName,
  recipeHash,
} from '../../electron/services/provider/kvm/guest/bake-recipe.js';
import { launchRecipe } from '../../electron/services/provider/kvm/images/bake.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { type ProviderHome, hypervisorState, tinyProviderHome } from '../support/provider.js';
import { runCliProcess } from '../support/cli.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const NAME = 'egtest-prune-baked';
let client: LibvirtClient | undefined;
let made: (ProviderHome & { sha256: string }) | undefined;
let current = '';
let old = '';
const images = (...args: string[]) =>
  runCliProcess(['--config', made!.config, 'images', ...args], {
    HOME: made!.home,
    EGRESS_DESK_HOME: join(made!.home, 'data'),
  });

interface PruneJson {
  unused: Array<{ volume: string }>;
  removed: Array<{ volume: string }>;
  kept: Array<{ volume: string; why: string }>;
}

/** An empty qcow2 in the test pool's directory, dated an hour ago (past the 15-minute grace of a fresh base). */
function hourOldVolume(name: string): void {
  const path = join(env.EGRESS_TEST_POOL_DIR, name);
  execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', path, '16M']);
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(path, hourAgo, hourAgo);
}

beforeAll(async () => {
  made = tinyProviderHome(env, 'egress-prune-baked-');
  current = bakedVolumeName(made.sha256, launchRecipe());
  // An old recipe: another package list gives another hash, as a change to what is baked does.
  old = bakedVolumeName(made.sha256, { packages: ['qemu-guest-agent', 'squid'] });
  client = await systemClient();
  // Left by an earlier run that was killed: start from a pool without them.
  await removeProxy(client, NAME, [current, old]);
  hourOldVolume(current);
  hourOldVolume(old);
  // libvirt learns of files written beside it when the pool is refreshed (this does it).
  expect((await hypervisorState(client)).volumes).toEqual(expect.arrayContaining([current, old]));
});

afterAll(async () => {
  // Everything this file made, whether or not the test got that far; nothing else.
  if (client) {
    await removeProxy(client, NAME, [current, old]);
    await client.close();
  }
  if (made) rmSync(made.home, { recursive: true, force: true });
});

describe('images prune --hosts: baked bases', () => {
  it("removes the baked volume of an old recipe; keeps the current recipe's while a proxy backs onto it", async () => {
    expect(parseBakedVolumeName(old)?.recipeHash).not.toBe(recipeHash(launchRecipe()));
    expect(parseBakedVolumeName(current)?.recipeHash).toBe(recipeHash(launchRecipe()));

    const launch = await made!.proxies('launch', NAME, '--allow', '192.168.150.0/24');
    expect(launch.code, launch.stderr).toBe(0);
    expect(launch.stderr).toMatch(new RegExp(`base done: .*${current.replace(/\./g, '\\.')}`));

    const shown = JSON.parse((await images('prune', '--hosts', '--dry-run', '--json')).stdout) as PruneJson;
    expect(shown.unused.map((u) => u.volume)).toContain(old);
    expect(shown.unused.map((u) => u.volume)).not.toContain(current);
    expect(shown.kept.find((k) => k.volume === current)?.why).toMatch(/^backs volume /);

    const pruned = await images('prune', '--hosts', '--yes', '--json');
    expect(pruned.code, pruned.stderr).toBe(0);
    const report = JSON.parse(pruned.stdout) as PruneJson;
    expect(report.removed.map((r) => r.volume)).toContain(old);
    expect(report.removed.map((r) => r.volume)).not.toContain(current);
    const after = (await hypervisorState(client!)).volumes;
    expect(after).not.toContain(old);
    expect(after).toContain(current);

    // The current recipe is no shield by itself: once its proxy is gone it is an unused base
    // like any other (a launch bakes or uploads again), shown here without removing it.
    expect((await made!.proxies('delete', NAME)).code).toBe(0);
    const idle = JSON.parse((await images('prune', '--hosts', '--dry-run', '--json')).stdout) as PruneJson;
    expect(idle.unused.map((u) => u.volume)).toContain(current);
    expect((await hypervisorState(client!)).volumes).toContain(current);
  });
});
