/**
 * The guest lane for the socks5 kind: `proxies launch --kind socks5 --wait` on the
 * preinstalled guest image (it carries dante-server, as it carries tinyproxy) boots a
 * Dante proxy, prints a `socks5://` URL once the port answers, and
 * `curl --socks5-hostname` with its credentials, run inside the test namespace, fetches
 * the page of the HTTP server there (the name resolved by the proxy). A wrong password
 * is refused. `proxies url` and `proxies client-settings` (shell exports, a curl config)
 * work as pasted. The metadata says `kind: socks5`; `proxies delete` leaves nothing.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import {
  GUEST_PAGE_MARK,
  type GuestHome,
  type GuestImage,
  curlThroughSocks,
  guestConfig,
  guestHome,
  guestImage,
  launchTimed,
  namespaceHttpServer,
} from '../support/guest.js';
import { useGuestLane } from '../support/guest-lane.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const NAME = 'egtest-socks-1';
const PAGE_PORT = 18085;
let g: GuestHome;
let image: GuestImage;

const cli = (...args: string[]) => g.cli('proxies', ...args);

const curlSocks = (proxy: string, user: string, target: string) => curlThroughSocks(env, proxy, user, target);

const lane = useGuestLane([NAME]);

beforeAll(async () => {
  image = guestImage();
  g = guestHome(env, 'egress-socks-', guestConfig(env, image));
  lane.stopAtEnd(namespaceHttpServer(env, PAGE_PORT).child);
}, 20 * 60_000);

describe('a socks5 proxy on the guest image', () => {
  it(
    'forwards with its credentials (curl --socks5-hostname), refuses a wrong password, and says socks5 in its metadata',
    async () => {
      const before = await lane.state();
      const { r } = await launchTimed('socks5', cli, NAME, '--kind', 'socks5');
      expect(r.code, r.stderr).toBe(0);
      const url = new URL(r.stdout.trim());
      expect(url.protocol).toBe('socks5:');
      expect(url.port).toBe('1080');
      const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      // --socks5-hostname hands the target's host to the proxy as it is (SOCKS5 domain form), as browsers with proxyDNS do.
      const target = `http://${env.EGRESS_TEST_BRIDGE_IP}:${PAGE_PORT}/index.html`;

      const ok = curlSocks(url.host, user, target);
      expect(ok.code, ok.out).toBe(0);
      expect(ok.out).toContain(GUEST_PAGE_MARK);

      const refused = curlSocks(url.host, `${decodeURIComponent(url.username)}:not-the-password`, target);
      expect(refused.code, refused.out).not.toBe(0);
      expect(refused.out).not.toContain(GUEST_PAGE_MARK);

      // `proxies url` prints the socks5:// URL; the client settings paste as they are: the
      // shell exports (curl reads ALL_PROXY) and a curl config (curl -K), run in the namespace.
      const printed = await cli('url', NAME);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout.trim()).toBe(url.href.replace(/\/$/, ''));
      const exportsOut = await cli('client-settings', NAME, '--format', 'env', '--with-credentials');
      expect(exportsOut.code, exportsOut.stderr).toBe(0);
      const viaEnv = execFileSync(
        'ip',
        [
          'netns',
          'exec',
          env.EGRESS_TEST_NETNS,
          'sh',
          '-c',
          `${exportsOut.stdout}\nexec curl -sS --max-time 20 "$1"`,
          'sh',
          target,
        ],
        { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      );
      expect(viaEnv).toContain(GUEST_PAGE_MARK);
      const curlrc = join(g.home, 'socks.curlrc');
      const written = await cli('client-settings', NAME, '--format', 'curl', '--with-credentials', '--out', curlrc);
      expect(written.code, written.stderr).toBe(0);
      expect(
        execFileSync(
          'ip',
          ['netns', 'exec', env.EGRESS_TEST_NETNS, 'curl', '-sS', '--max-time', '20', '-K', curlrc, target],
          { encoding: 'utf8', timeout: 60_000 },
        ),
      ).toContain(GUEST_PAGE_MARK);
      const noCreds = await cli('client-settings', NAME, '--format', 'json');
      expect(noCreds.stdout).not.toContain(decodeURIComponent(url.password));

      const inspect = await cli('inspect', NAME, '--json');
      expect(inspect.code, inspect.stderr).toBe(0);
      const parsed = z
        .object({ metadata: z.object({ kind: z.string().optional() }), domainXml: z.string() })
        .parse(JSON.parse(inspect.stdout));
      expect(parsed.metadata.kind).toBe('socks5');
      expect(parsed.domainXml).toContain('<kind>socks5</kind>');

      const del = await cli('delete', NAME);
      expect(del.code, del.stderr).toBe(0);
      await lane.expectAsBefore(before, [baseVolumeName(image.sha256, 'qcow2')]);
    },
    15 * 60_000,
  );
});
