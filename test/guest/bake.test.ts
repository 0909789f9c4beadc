/**
 * Baking on a real guest: the bare test image (no tinyproxy, dante-server or
 * qemu-guest-agent, `guest-image.sh --bare`) is baked on the test host with the site mirror
 * given through `kvm.vendorData` (`images bake`); the baked base
 * `egress-baked-<sha256>-<recipe hash>.qcow2` must then be in the pool. The mirror is then
 * stopped and a proxy launched from a config with NO mirror: its plan's `base` step must
 * name the baked base, the URL must forward HTTP, and the guest agent (baked in) must
 * report the address, and tinyproxy must have started once (the bake's drop-in starts it on
 * its config; the baked seed does not restart it). A socks5 proxy on the same baked base,
 * launched at the same time, must forward too (the bake disables danted; its seed enables it). Cleanup: the proxies
 * are deleted and the baked volume removed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bakedVolumeName, proxyRecipe } from '../../electron/services/provider/kvm/guest/bake-recipe.js';
import {
  GUEST_PAGE_MARK,
  type GuestHome,
  type GuestImage,
  agentReportsAddress,
  bareImageRepo,
  curlThroughSocks,
  fetchThroughProxy,
  guestConfig,
  guestHome,
  guestImage,
  namespaceHttpServer,
  siteMirrorVendorData,
} from '../support/guest.js';
import { removeVolumes } from '../support/libvirt.js';
import { useGuestLane } from '../support/guest-lane.js';
import { agentExec } from '../support/qemu-agent.js';
import { hypervisorState } from '../support/provider.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const NAME = 'egtest-baked-1';
const SOCKS = 'egtest-baked-socks';
const PAGE_PORT = 18085;
const MIRROR_PORT = 18086;
let mirror: ReturnType<typeof namespaceHttpServer> | undefined;
/** The bake's home (its config has the mirror), then the launches' (no mirror), and a second launch home for the SOCKS proxy (its own credentials file and image cache). */
let bakeHome: GuestHome;
let plain: GuestHome;
let socksHome: GuestHome;
let image: GuestImage;
let baked: string;

const lane = useGuestLane([NAME, SOCKS], () => (baked ? [baked] : []));

beforeAll(async () => {
  image = guestImage({ bare: true });
  baked = bakedVolumeName(image.sha256, proxyRecipe());
  mirror = namespaceHttpServer(env, MIRROR_PORT, bareImageRepo(image));
  lane.stopAtEnd(mirror.child);
  bakeHome = guestHome(
    env,
    'egress-bake-',
    guestConfig(env, image, siteMirrorVendorData(`http://${env.EGRESS_TEST_BRIDGE_IP}:${MIRROR_PORT}/`)),
  );
  // The launches' config has no mirror: its vendor-data installs nothing, and there is no apt source to reach.
  plain = guestHome(env, 'egress-bake-plain-', guestConfig(env, image));
  socksHome = guestHome(env, 'egress-bake-socks-', guestConfig(env, image));
  lane.stopAtEnd(namespaceHttpServer(env, PAGE_PORT).child);
}, 20 * 60_000);

/** A domain's journal for one unit this boot, read through the guest agent (guest-exec). */
async function agentJournal(domainName: string, unit: string): Promise<string> {
  const dom = await lane.client.call('DOMAIN_LOOKUP_BY_NAME', { name: domainName });
  const r = await agentExec(lane.client, dom, '/usr/bin/journalctl', ['-b', '-u', unit, '--no-pager', '-o', 'cat']);
  if (r.exitCode !== 0) throw new Error(`journalctl in the guest exited ${r.exitCode}: ${r.stderr}`);
  return r.stdout;
}

describe('baking the bare image on the test host', () => {
  it(
    'makes the baked base; a launch with no mirror uses it, forwards HTTP and the agent reports the address',
    async () => {
      const before = await hypervisorState(lane.client);
      expect(before.volumes, `${baked} is in the pool before the test (left by an earlier run?)`).not.toContain(baked);
      const t0 = Date.now();
      const b = await bakeHome.cli('images', 'bake', 'guest', '--host', 'local');
      console.log(`bake: images bake took ${((Date.now() - t0) / 1000).toFixed(1)} s\n${b.stderr}`);
      expect(b.code, b.stderr).toBe(0);
      expect(b.stdout).toContain(baked);
      const afterBake = await hypervisorState(lane.client);
      expect(afterBake.volumes).toContain(baked);
      // Nothing of the baking run is left: no egress-baking-* domain or volume.
      expect(afterBake.domains).toEqual(before.domains);
      expect(afterBake.volumes.filter((v) => v.startsWith('egress-baking-'))).toEqual([]);
      expect(mirror!.requests().join('\n')).toMatch(/tinyproxy_[^ ]+\.deb/);

      // No mirror from here on.
      mirror!.child.kill();
      mirror = undefined;
      // Both launches at once (they share nothing but the baked base): the SOCKS one from a
      // home of its own, so that two CLI processes never write one credentials file.
      const t1 = Date.now();
      const [r, s] = await Promise.all([
        plain.cli('proxies', 'launch', NAME, '--wait', '--timeout', '600', '--allow', '192.168.150.0/24'),
        socksHome.cli(
          'proxies',
          'launch',
          SOCKS,
          '--kind',
          'socks5',
          '--wait',
          '--timeout',
          '600',
          '--allow',
          '192.168.150.0/24',
        ),
      ]);
      console.log(
        `bake: launch --wait of an HTTP and a SOCKS5 proxy at once on the baked base took ${((Date.now() - t1) / 1000).toFixed(1)} s\n${r.stderr}`,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`base done: .*${baked.replace(/\./g, '\\.')}`));
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
      expect(s.stderr).toMatch(new RegExp(`base done: .*${baked.replace(/\./g, '\\.')}`));
      const socks = new URL(s.stdout.trim());
      const through = curlThroughSocks(
        env,
        socks.host,
        `${decodeURIComponent(socks.username)}:${decodeURIComponent(socks.password)}`,
        `http://${env.EGRESS_TEST_BRIDGE_IP}:${PAGE_PORT}/index.html`,
      );
      expect(through.out).toContain(GUEST_PAGE_MARK);
      expect((await socksHome.cli('proxies', 'delete', SOCKS)).code).toBe(0);

      const del = await plain.cli('proxies', 'delete', NAME);
      expect(del.code, del.stderr).toBe(0);
      await removeVolumes(lane.client, [baked]);
      const after = await hypervisorState(lane.client);
      expect(after.domains).toEqual(before.domains);
      expect(after.volumes).not.toContain(baked);
    },
    40 * 60_000,
  );
});
