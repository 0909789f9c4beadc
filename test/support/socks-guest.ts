/**
 * A socks5 proxy on a real guest, checked as a person uses it (the guest lane's bake test
 * runs it on its SOCKS5 member; it was once a test file of its own, with a boot of its own):
 * `curl --socks5-hostname` with its credentials fetches `target` (the name resolved by the
 * proxy), a wrong password is refused, `proxies url` and `proxies client-settings` (shell
 * exports, a curl config) work as pasted, the JSON settings without credentials hold no
 * password, and the metadata says `kind: socks5`.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import { expect } from 'vitest';
import type { TestEnv } from './env.js';
import { GUEST_PAGE_MARK, type GuestHome, curlThroughSocks } from './guest.js';

export async function expectSocksProxyWorks(
  env: TestEnv,
  home: GuestHome,
  name: string,
  url: URL,
  target: string,
): Promise<void> {
  const cli = (...args: string[]) => home.cli('proxies', ...args);
  expect(url.protocol).toBe('socks5:');
  expect(url.port).toBe('1080');
  const username = decodeURIComponent(url.username);
  // --socks5-hostname hands the target's host to the proxy as it is (SOCKS5 domain form), as browsers with proxyDNS do.
  const ok = curlThroughSocks(env, url.host, `${username}:${decodeURIComponent(url.password)}`, target);
  expect(ok.code, ok.out).toBe(0);
  expect(ok.out).toContain(GUEST_PAGE_MARK);
  const refused = curlThroughSocks(env, url.host, `${username}:not-the-password`, target);
  expect(refused.code, refused.out).not.toBe(0);
  expect(refused.out).not.toContain(GUEST_PAGE_MARK);

  // `proxies url` prints the socks5:// URL; the client settings paste as they are: the
  // shell exports (curl reads ALL_PROXY) and a curl config (curl -K), run in the namespace.
  const printed = await cli('url', name);
  expect(printed.code, printed.stderr).toBe(0);
  expect(printed.stdout.trim()).toBe(url.href.replace(/\/$/, ''));
  const exportsOut = await cli('client-settings', name, '--format', 'env', '--with-credentials');
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
  const curlrc = join(home.home, 'socks.curlrc');
  const written = await cli('client-settings', name, '--format', 'curl', '--with-credentials', '--out', curlrc);
  expect(written.code, written.stderr).toBe(0);
  expect(
    execFileSync(
      'ip',
      ['netns', 'exec', env.EGRESS_TEST_NETNS, 'curl', '-sS', '--max-time', '20', '-K', curlrc, target],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    ),
  ).toContain(GUEST_PAGE_MARK);
  const noCreds = await cli('client-settings', name, '--format', 'json');
  expect(noCreds.stdout).not.toContain(decodeURIComponent(url.password));

  const inspect = await cli('inspect', name, '--json');
  expect(inspect.code, inspect.stderr).toBe(0);
  const parsed = z
    .object({ metadata: z.object({ kind: z.string().optional() }), domainXml: z.string() })
    .parse(JSON.parse(inspect.stdout));
  expect(parsed.metadata.kind).toBe('socks5');
  expect(parsed.domainXml).toContain('<kind>socks5</kind>');
}
