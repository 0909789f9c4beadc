/**
 * Baking from the app's window on the real bare guest image (issue 12.3), in Chromium
 * through `egress-desk serve`: the image row shows the local host as "plain" with a Bake
 * button; clicking it shows the bake's progress in the row, and when the bake is done the
 * row says "baked", the baked base `egress-baked-<sha256>-<recipe hash>.qcow2` is in the
 * pool and nothing of the baking run (an `egress-baking-*` domain or volume) is left. The
 * site mirror (the flat apt repository of the bare image's missing packages, served inside
 * the test namespace) reaches the baking guest through `kvm.vendorData`, as a site's would.
 * That a launch then uses the baked base is test/guest/bake.test.ts's part.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { bakedVolumeName, proxyRecipe } from '../../electron/services/provider/kvm/guest/bake-recipe.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp } from '../browser/app-page.js';
import { publishScreenshot } from '../browser/screenshots.js';
import {
  type GuestImage,
  bareImageRepo,
  guestConfig,
  guestImage,
  namespaceHttpServer,
  siteMirrorVendorData,
} from '../support/guest.js';
import { removeVolumes, systemClient } from '../support/libvirt.js';
import { hypervisorState } from '../support/provider.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const MIRROR_PORT = 18087;
let client: LibvirtClient;
let mirror: ReturnType<typeof namespaceHttpServer> | undefined;
let app: AppPage | undefined;
let image: GuestImage;
let baked: string;

beforeAll(async () => {
  image = guestImage({ bare: true });
  baked = bakedVolumeName(image.sha256, proxyRecipe());
  client = await systemClient();
  mirror = namespaceHttpServer(env, MIRROR_PORT, bareImageRepo(image));
  app = await openApp({
    prefix: 'egress-bake-gui-',
    config: () => guestConfig(env, image, siteMirrorVendorData(`http://${env.EGRESS_TEST_BRIDGE_IP}:${MIRROR_PORT}/`)),
  });
}, 20 * 60_000);

afterAll(async () => {
  mirror?.child.kill();
  await app?.close();
  if (client) {
    await removeVolumes(client, [baked]);
    await client.close();
  }
}, 120_000);

describe('baking from the window on the real bare image', () => {
  it(
    'Bake on the image row turns the local host from plain to baked, leaving only the baked base',
    async () => {
      const before = await hypervisorState(client);
      expect(before.volumes, `${baked} is in the pool before the test (left by an earlier run?)`).not.toContain(baked);
      const page = app!.page;
      await app!.nav('Images & machine types').click({ timeout: 30_000 });
      const row = page.getByRole('region', { name: 'Images' }).getByRole('row', { name: /^guest\b/ });
      const local = row
        .getByRole('list', { name: 'On hosts' })
        .getByRole('listitem')
        .filter({ hasText: /^local:/ });
      // The local host connects on its own; the view asks again when it has.
      await expect.poll(() => local.innerText(), { timeout: 60_000 }).toMatch(/\(plain\)/);

      const t0 = Date.now();
      await row.getByRole('button', { name: 'Bake guest on local' }).click();
      // The row shows the bake while it runs (the upload of the base, then the baking boot).
      await row.getByRole('status', { name: 'Baking guest on local' }).waitFor({ timeout: 60_000 });
      await page.screenshot({ path: join(SHOTS, 'image-baking-light.png') });
      await expect.poll(() => local.innerText(), { timeout: 25 * 60_000, interval: 2_000 }).toMatch(/\(baked\)/);
      console.log(`guest browser lane: Bake click to baked ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      await expect(row.locator('.bake-outcome').count()).resolves.toBe(0);
      await expect(local.getByRole('button', { name: 'Bake guest on local' }).count()).resolves.toBe(0);
      await page.screenshot({ path: join(SHOTS, 'image-baked-light.png') });
      publishScreenshot(join(SHOTS, 'image-baked-light.png'), join(DOCS_SHOTS, 'image-baked.png'));

      const after = await hypervisorState(client);
      expect(after.volumes).toContain(baked);
      expect(after.domains).toEqual(before.domains);
      expect(after.volumes.filter((v) => v.startsWith('egress-baking-'))).toEqual([]);
      // The baking guest installed the proxy software from the site mirror.
      expect(mirror!.requests().join('\n')).toMatch(/tinyproxy_[^ ]+\.deb/);
      expect(app!.errors).toEqual([]);
    },
    30 * 60_000,
  );
});
