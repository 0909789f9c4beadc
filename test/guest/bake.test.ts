/**
 * Baking on a real guest, once for the lane: the bare test image (no tinyproxy,
 * dante-server or qemu-guest-agent, `guest-image.sh --bare`) is baked from the app's window,
 * and the baked base is then what the CLI finds and launches on.
 *
 * 1. In Chromium through `egress-desk serve` (issue 12.3): the image row shows the local host
 *    as "plain" with a Bake button; clicking it shows the bake's progress in the row, and
 *    when the bake is done the row says "baked", the baked base
 *    `egress-baked-<sha256>-<recipe hash>.qcow2` is in the pool and nothing of the baking run
 *    (an `egress-baking-*` domain or volume) is left. The site mirror (the flat apt repository
 *    of the bare image's missing packages, served inside the test namespace) reaches the
 *    baking guest through `kvm.vendorData`, as a site's would.
 * 2. With the mirror stopped and a config with NO mirror: `images bake` finds the base baked
 *    (`created: false`; the baking run's own output is images-bake-cli's unit test), and an
 *    HTTP and a SOCKS5 proxy (and a second HTTP one) launched at once use it: each plan's `base` step names it, the
 *    HTTP URL forwards, the guest agent (baked in) reports the address, tinyproxy started
 *    once (the bake's drop-in starts it on its config; the baked seed does not restart it),
 *    and the SOCKS5 proxy forwards too (the bake disables danted; its seed enables it), refuses
 *    a wrong password, and its URL, client settings and metadata are right
 *    (test/support/socks-guest.ts: once a file with a boot of its own). A
 *    second HTTP proxy is launched beside them. Then the app's gateway over all three (issue
 *    40; test/support/gateway-guest.ts): 300 requests spread, sessions, label and host
 *    selections, wrong and missing credentials, no failed request with the SOCKS5 member
 *    paused, and the Gateway view's screenshot under that traffic.
 *
 * The two bakes of the same image this lane once ran (one from the CLI, one from the window)
 * cost about three minutes of TCG for the same service path: the window's is kept, since
 * the CLI's differs only in how it prints. Cleanup: the proxies are deleted and the baked
 * volume removed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bakedVolumeName, proxyRecipe } from '../../electron/services/provider/kvm/guest/bake-recipe.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp } from '../browser/app-page.js';
import { publishScreenshot } from '../browser/screenshots.js';
import {
  GUEST_PAGE_MARK,
  type GuestHome,
  type GuestImage,
  agentReportsAddress,
  bareImageRepo,
  fetchThroughProxy,
  guestConfig,
  guestHome,
  guestImage,
  namespaceHttpServer,
  siteMirrorVendorData,
} from '../support/guest.js';
import { removeVolumes } from '../support/libvirt.js';
import { type GuestMember, type ProxyService, expectGatewayServes } from '../support/gateway-guest.js';
import { instanceId } from '../../electron/services/provider/kvm/names.js';
import { useGuestLane } from '../support/guest-lane.js';
import { expectSocksProxyWorks } from '../support/socks-guest.js';
import { agentExec } from '../support/qemu-agent.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const NAME = 'egtest-baked-1';
const SOCKS = 'egtest-baked-socks';
/** A second HTTP proxy: the gateway's third member. */
const NAME2 = 'egtest-baked-2';
const PAGE_PORT = 18085;
const MIRROR_PORT = 18086;
let mirror: ReturnType<typeof namespaceHttpServer> | undefined;
/** The window that bakes (its config has the mirror). */
let app: AppPage | undefined;
/** The launches' home (no mirror), and a second one for the SOCKS proxy (its own credentials file and image cache). */
let plain: GuestHome;
let socksHome: GuestHome;
let http2Home: GuestHome;
let image: GuestImage;
let baked: string;

const lane = useGuestLane([NAME, NAME2, SOCKS], () => (baked ? [baked] : []));

beforeAll(async () => {
  image = guestImage({ bare: true });
  baked = bakedVolumeName(image.sha256, proxyRecipe());
  mirror = namespaceHttpServer(env, MIRROR_PORT, bareImageRepo(image));
  lane.stopAtEnd(mirror.child);
  app = await openApp({
    prefix: 'egress-bake-gui-',
    config: () => guestConfig(env, image, siteMirrorVendorData(`http://${env.EGRESS_TEST_BRIDGE_IP}:${MIRROR_PORT}/`)),
  });
  // The launches' config has no mirror: its vendor-data installs nothing, and there is no apt source to reach.
  plain = guestHome(env, 'egress-bake-plain-', guestConfig(env, image));
  socksHome = guestHome(env, 'egress-bake-socks-', guestConfig(env, image));
  http2Home = guestHome(env, 'egress-bake-http2-', guestConfig(env, image));
  lane.stopAtEnd(namespaceHttpServer(env, PAGE_PORT).child);
}, 20 * 60_000);

afterAll(async () => {
  await app?.close();
}, 120_000);

/** A domain's journal for one unit this boot, read through the guest agent (guest-exec). */
async function agentJournal(domainName: string, unit: string): Promise<string> {
  const dom = await lane.client.call('DOMAIN_LOOKUP_BY_NAME', { name: domainName });
  const r = await agentExec(lane.client, dom, '/usr/bin/journalctl', ['-b', '-u', unit, '--no-pager', '-o', 'cat']);
  if (r.exitCode !== 0) throw new Error(`journalctl in the guest exited ${r.exitCode}: ${r.stderr}`);
  return r.stdout;
}

/** `systemctl stop|start tinyproxy` in a member's guest, through the guest agent (the domain keeps running). */
const proxyService: ProxyService = async (member, verb) => {
  const dom = await lane.client.call('DOMAIN_LOOKUP_BY_NAME', { name: member.domain });
  const r = await agentExec(lane.client, dom, '/usr/bin/systemctl', [verb, 'tinyproxy']);
  if (r.exitCode !== 0)
    throw new Error(`systemctl ${verb} tinyproxy in ${member.name} exited ${r.exitCode}: ${r.stderr}`);
};

const escaped = (s: string): string => s.replace(/\./g, '\\.');

describe('baking the bare image on the test host', () => {
  it(
    'Bake on the image row turns the local host from plain to baked, leaving only the baked base',
    async () => {
      const before = await lane.state();
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
      console.log(`bake: Bake click to baked ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      await expect(row.locator('.bake-outcome').count()).resolves.toBe(0);
      await expect(local.getByRole('button', { name: 'Bake guest on local' }).count()).resolves.toBe(0);
      await page.screenshot({ path: join(SHOTS, 'image-baked-light.png') });
      publishScreenshot(join(SHOTS, 'image-baked-light.png'), join(DOCS_SHOTS, 'image-baked.png'));

      const after = await lane.state();
      expect(after.volumes).toContain(baked);
      expect(after.domains).toEqual(before.domains);
      expect(after.volumes.filter((v) => v.startsWith('egress-baking-'))).toEqual([]);
      // The baking guest installed the proxy software from the site mirror.
      expect(mirror!.requests().join('\n')).toMatch(/tinyproxy_[^ ]+\.deb/);
      expect(app!.errors).toEqual([]);
      await app!.close();
      app = undefined;
    },
    30 * 60_000,
  );

  it(
    'with no mirror, images bake finds the base baked; HTTP and SOCKS5 launches use it, forward, and the agent reports the address',
    async () => {
      const before = await lane.state();
      expect(before.volumes, `${baked} was to be baked by the test above`).toContain(baked);
      // No mirror from here on.
      mirror!.child.kill();
      mirror = undefined;
      const b = await plain.cli('images', 'bake', 'guest', '--host', 'local', '--json');
      expect(b.code, b.stderr).toBe(0);
      expect(JSON.parse(b.stdout)).toMatchObject({ host: 'local', image: 'guest', volume: baked, created: false });

      // Both launches at once (they share nothing but the baked base): the SOCKS one from a
      // home of its own, so that two CLI processes never write one credentials file.
      const t1 = Date.now();
      const launch = (home: GuestHome, name: string, ...more: string[]) =>
        home.cli('proxies', 'launch', name, ...more, '--wait', '--timeout', '600', '--allow', '192.168.150.0/24');
      const [r, s, r2] = await Promise.all([
        launch(plain, NAME, '--label', 'role=http'),
        launch(socksHome, SOCKS, '--kind', 'socks5', '--label', 'role=socks'),
        launch(http2Home, NAME2, '--label', 'role=http'),
      ]);
      console.log(
        `bake: launch --wait of two HTTP and a SOCKS5 proxy at once on the baked base took ${((Date.now() - t1) / 1000).toFixed(1)} s\n${r.stderr}`,
      );
      expect(r2.code, r2.stderr).toBe(0);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`base done: .*${escaped(baked)}`));
      const url = r.stdout.trim();
      const address = new URL(url).hostname;
      expect(fetchThroughProxy(env, url, `http://${env.EGRESS_TEST_BRIDGE_IP}:${PAGE_PORT}/index.html`)).toContain(
        GUEST_PAGE_MARK,
      );

      const inspection = await agentReportsAddress(() => plain.cli('proxies', 'inspect', NAME, '--json'), address);
      expect(inspection.problems.agent).toBeUndefined();
      // tinyproxy started once, on our config: no restart after it answered (the journal,
      // through the agent: one "Initializing tinyproxy" this boot).
      const starts = await agentJournal(inspection.proxy.id, 'tinyproxy');
      expect(starts.match(/Initializing tinyproxy/g) ?? [], starts).toHaveLength(1);

      // A socks5 proxy on the same baked base: Dante is baked in, disabled; its seed enables it.
      expect(s.code, s.stderr).toBe(0);
      expect(s.stderr).toMatch(new RegExp(`base done: .*${escaped(baked)}`));
      // As a person uses it: a wrong password, `proxies url`, client settings as pasted, its metadata.
      await expectSocksProxyWorks(
        env,
        socksHome,
        SOCKS,
        new URL(s.stdout.trim()),
        `http://${env.EGRESS_TEST_BRIDGE_IP}:${PAGE_PORT}/index.html`,
      );

      // One address for all three (issue 40): the app's gateway over these real members.
      const t2 = Date.now();
      const member = (proxyUrl: string, name: string, role: GuestMember['role']): GuestMember => {
        const u = new URL(proxyUrl.trim());
        const credentials = { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
        return { name, address: u.hostname, domain: instanceId(name), role, credentials };
      };
      await expectGatewayServes(
        env,
        guestConfig(env, image),
        [member(r.stdout, NAME, 'http'), member(r2.stdout, NAME2, 'http'), member(s.stdout, SOCKS, 'socks')],
        proxyService,
      );
      console.log(`bake: the gateway's checks over three took ${((Date.now() - t2) / 1000).toFixed(1)} s`);
      expect((await socksHome.cli('proxies', 'delete', SOCKS)).code).toBe(0);
      expect((await http2Home.cli('proxies', 'delete', NAME2)).code).toBe(0);

      const del = await plain.cli('proxies', 'delete', NAME);
      expect(del.code, del.stderr).toBe(0);
      await removeVolumes(lane.client, [baked]);
      const after = await lane.state();
      expect(after.domains).toEqual(before.domains);
      expect(after.volumes).not.toContain(baked);
    },
    40 * 60_000,
  );
});
