/**
 * The guest lane on an image as distributions publish it: no tinyproxy, no qemu-guest-agent
 * (`guest-image.sh --bare`). A site mirror (the flat apt repository of the .debs those two
 * need, served inside the test namespace) is given to the guest through `kvm.vendorData`,
 * as a site would. `proxies launch --wait` must install both at first boot from that
 * mirror, the printed URL must forward HTTP, and the guest agent must come up and report
 * the proxy's address (source `agent`) without anything in vendor-data starting it.
 * Launch to ready is logged (docs/performance.md). `proxies delete` leaves nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { agentExec } from '../support/qemu-agent.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
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
  launchTimed,
  namespaceHttpServer,
  siteMirrorVendorData,
} from '../support/guest.js';
import { useGuestLane } from '../support/guest-lane.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const NAME = 'egtest-bare-1';
const PAGE_PORT = 18083;
const MIRROR_PORT = 18084;
let mirror: ReturnType<typeof namespaceHttpServer> | undefined;
let g: GuestHome;
let image: GuestImage;

const cli = (...args: string[]) => g.cli('proxies', ...args);

const lane = useGuestLane([NAME]);

beforeAll(async () => {
  image = guestImage({ bare: true });
  mirror = namespaceHttpServer(env, MIRROR_PORT, bareImageRepo(image));
  lane.stopAtEnd(mirror.child);
  g = guestHome(
    env,
    'egress-bare-',
    guestConfig(env, image, siteMirrorVendorData(`http://${env.EGRESS_TEST_BRIDGE_IP}:${MIRROR_PORT}/`)),
  );
  lane.stopAtEnd(namespaceHttpServer(env, PAGE_PORT).child);
}, 20 * 60_000);

describe('a launch on an image without tinyproxy and qemu-guest-agent, with a site mirror', () => {
  it(
    'installs both at first boot; the URL forwards HTTP and the agent reports the address',
    async () => {
      const before = await lane.state();
      const t0 = Date.now();
      const { r, seconds: ready } = await launchTimed(
        'bare image (Launch to ready, packages from the mirror)',
        cli,
        NAME,
        '--allow',
        '192.168.150.0/24',
      );
      expect(r.code, r.stderr).toBe(0);
      const url = r.stdout.trim();
      expect(url).toMatch(/^http:\/\/egress:[A-Za-z0-9_-]+@192\.168\.150\.\d+:3128$/);
      const address = new URL(url).hostname;

      // Both packages came from the mirror at first boot: the image has neither (guest-image.sh checks).
      const fetched = mirror!.requests().join('\n');
      expect(fetched).toMatch(/GET \/\.?\/?tinyproxy_[^ ]+\.deb/);
      expect(fetched).toMatch(/GET \/\.?\/?qemu-guest-agent_[^ ]+\.deb/);

      expect(fetchThroughProxy(env, url, `http://${env.EGRESS_TEST_BRIDGE_IP}:${PAGE_PORT}/index.html`)).toContain(
        GUEST_PAGE_MARK,
      );

      // The agent: installed by vendor-data's `packages`, started by our user-data's runcmd
      // (right after tinyproxy, so within seconds of ready).
      const inspection = await agentReportsAddress(() => cli('inspect', NAME, '--json'), address);
      console.log(
        `bare image: the agent reported ${address} ${((Date.now() - t0) / 1000 - ready).toFixed(1)} s after ready`,
      );
      expect(inspection.problems.agent).toBeUndefined();

      const dom = await lane.client.call('DOMAIN_LOOKUP_BY_NAME', { name: inspection.proxy.id });
      const status = await agentExec(lane.client, dom, '/usr/bin/dpkg-query', [
        '-W',
        '-f',
        '${Package} ${db:Status-Status}\\n',
        'tinyproxy',
        'qemu-guest-agent',
      ]);
      expect(status.stdout.split('\n').filter(Boolean).sort()).toEqual([
        'qemu-guest-agent installed',
        'tinyproxy installed',
      ]);
      const cloudInit = await agentExec(lane.client, dom, '/usr/bin/cloud-init', ['status', '--long']);
      expect(cloudInit.stdout).toMatch(/status: done/);

      const del = await cli('delete', NAME);
      expect(del.code, del.stderr).toBe(0);
      await lane.expectAsBefore(before, [baseVolumeName(image.sha256, 'qcow2')]);
    },
    15 * 60_000,
  );
});
