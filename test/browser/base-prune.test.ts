/**
 * Unused base volumes removed from the Images view, in Debian's Chromium through the real
 * `egress-desk serve`, against the real libvirtd (issue 15, "Time": a button in Images).
 * Two base volumes are made in the test pool: one written an hour ago that nothing uses
 * (shown, then removed after Remove is clicked), and one written just now (kept: a launch
 * in another process may be about to use it, and the view says so); and a baked volume of an
 * old bake recipe written an hour ago, which no launch chooses any more (listed and removed
 * like a plain base).
 */
import { randomBytes } from 'node:crypto';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient } from '../../electron/libvirt/index.js';
import { bakedVolumeName } from '../../electron/services/provider/kvm/guest/bake-recipe.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { removeVolumes, systemClient, testPool } from '../support/libvirt.js';
import { hypervisorState } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { type AppPage, SHOTS, openApp, testConfig } from './app-page.js';

const env = testEnv();
const OLD = baseVolumeName(randomBytes(32).toString('hex'), 'qcow2');
const YOUNG = baseVolumeName(randomBytes(32).toString('hex'), 'qcow2');
/** Another package list than today's recipe: the name an older bake gave. */
const OLD_BAKED = bakedVolumeName(randomBytes(32).toString('hex'), { packages: ['qemu-guest-agent', 'squid'] });
let client: LibvirtClient;
let app: AppPage;

beforeAll(async () => {
  client = await systemClient();
  const pool = await testPool(client);
  for (const name of [OLD, YOUNG, OLD_BAKED]) {
    await client.call('STORAGE_VOL_CREATE_XML', {
      pool,
      xml: `<volume><name>${name}</name><capacity unit='bytes'>1048576</capacity><target><format type='raw'/></target></volume>`,
      flags: 0,
    });
  }
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const name of [OLD, OLD_BAKED]) utimesSync(join(env.EGRESS_TEST_POOL_DIR, name), hourAgo, hourAgo);
  app = await openApp({ prefix: 'egress-base-prune-', config: () => testConfig(env) });
  await app.nav('Images & machine types').click({ timeout: 30_000 });
});

afterAll(async () => {
  await app?.close();
  if (client) {
    await removeVolumes(client, [OLD, YOUNG, OLD_BAKED]);
    await client.close();
  }
});

describe('browser: unused base volumes on the hosts', () => {
  it('are found and shown with what is kept and why, and removed only after Remove is clicked', async () => {
    const { page } = app;
    const panel = page.getByRole('region', { name: 'Base volumes on the hosts' });
    await panel.getByRole('button', { name: 'Find unused' }).click();
    const list = panel.getByRole('list', { name: 'Unused base volumes' });
    await list.getByText(OLD).waitFor({ timeout: 30_000 });
    expect(await list.innerText()).toContain(`in pool ${env.EGRESS_TEST_POOL} on local, 1.0 MiB`);
    expect(await list.innerText()).toContain(OLD_BAKED);
    expect(await list.innerText()).not.toContain(YOUNG);
    await panel.getByText(/\d+ kept/).click();
    await expect.poll(() => panel.innerText()).toMatch(new RegExp(`${YOUNG} on local: written \\d+ s ago`));
    // Shown, not yet removed.
    expect((await hypervisorState(client)).volumes).toEqual(expect.arrayContaining([OLD, OLD_BAKED]));
    await page.screenshot({ path: join(SHOTS, 'base-prune.png') });

    await panel.getByRole('button', { name: /^Remove \d+ \(/ }).click();
    await panel
      .getByRole('status')
      .getByText(/^Removed \d+ base volumes?/)
      .waitFor({ timeout: 30_000 });
    const volumes = (await hypervisorState(client)).volumes;
    expect(volumes).not.toContain(OLD);
    expect(volumes).not.toContain(OLD_BAKED);
    expect(volumes).toContain(YOUNG);
    expect(app.errors).toEqual([]);
  });
});
