/**
 * What the guest lane's tests share: the real guest image (built by test/env/guest-image.sh
 * and cached by recipe hash), a config that boots it on the test network, an HTTP server
 * inside the test namespace for a proxy to fetch from, and curl through a proxy from inside
 * it (those from bench/guest-setup.ts: the guest benches use them too).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { type GuestImage, httpProxyCurlArgs, netnsCurlArgs } from '../../bench/guest-setup.js';
import { type CliResult, cliRunner } from './cli.js';
import type { TestEnv } from './env.js';
import { tempDir } from './temp-dir.js';
import { waitFor } from './wait.js';

export {
  GUEST_PAGE_MARK,
  type GuestImage,
  guestConfig,
  guestImage,
  namespaceHttpServer,
  siteMirrorVendorData,
} from '../../bench/guest-setup.js';

/** The flat apt repository `guest-image.sh --bare` keeps beside the bare image: the .debs its first boot needs. */
export function bareImageRepo(image: GuestImage): string {
  return `${image.path}.repo`;
}

/**
 * curl inside the namespace through the SOCKS5 proxy at `proxy` (host:port) as `user`
 * (`name:password`), the target's host name resolved by the proxy; its exit code and output
 * (stderr when it failed), so a refusal can be asserted as well as a success.
 */
export function curlThroughSocks(
  env: TestEnv,
  proxy: string,
  user: string,
  target: string,
): { code: number; out: string } {
  try {
    const out = execFileSync('ip', netnsCurlArgs(env, ['--socks5-hostname', proxy, '--proxy-user', user], target), {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, out };
  } catch (err) {
    const e = err as { status: number | null; stderr?: string };
    return { code: e.status ?? -1, out: e.stderr ?? '' };
  }
}

/** Fetches `target` through the proxy at `proxyUrl`, from inside the namespace (the only place its address is reachable). */
export function fetchThroughProxy(env: TestEnv, proxyUrl: string, target: string): string {
  return execFileSync('ip', httpProxyCurlArgs(env, proxyUrl, target), { encoding: 'utf8', timeout: 120_000 });
}

/** What `proxies inspect NAME --json` says that the guest lane reads. */
export const ProxyInspectionSchema = z.object({
  proxy: z.object({ id: z.string() }),
  addresses: z.array(z.object({ address: z.string(), source: z.string() })),
  problems: z.record(z.string(), z.string()),
});
export type ProxyInspection = z.infer<typeof ProxyInspectionSchema>;

/**
 * Waits until `proxies inspect` (run by `inspect`) lists `address` from the guest agent: the
 * agent answers once the guest's runcmd has started it. Fails after 120 s, with what inspect
 * last said.
 */
export async function agentReportsAddress(
  inspect: () => Promise<CliResult>,
  address: string,
): Promise<ProxyInspection> {
  let last = '';
  return waitFor('the guest agent to report the proxy address', 120_000, async () => {
    const i = await inspect();
    if (i.code !== 0) throw new Error(i.stderr);
    const parsed = ProxyInspectionSchema.parse(JSON.parse(i.stdout));
    last = JSON.stringify({ addresses: parsed.addresses, problems: parsed.problems });
    return parsed.addresses.some((a) => a.source === 'agent' && a.address === address) ? parsed : undefined;
  }).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; inspect last said ${last}`);
  });
}

/** A throwaway home for a guest-lane file's CLI (test/support/cli.ts `cliRunner`). */
export interface GuestHome {
  home: string;
  /** The config file in it. */
  config: string;
  /** `egress-desk --config CONFIG ARGS` on this home (data in `home/data`), readiness probed inside the test namespace. */
  cli: (...args: string[]) => Promise<CliResult>;
}

/** A new home (removed when the file ends) with `configText` as its config.yaml. */
export function guestHome(env: TestEnv, prefix: string, configText: string): GuestHome {
  const home = tempDir(prefix);
  const config = join(home, 'config.yaml');
  writeFileSync(config, configText);
  return {
    home,
    config,
    cli: cliRunner({ home, data: join(home, 'data'), config, env: { EGRESS_DESK_PROBE_NETNS: env.EGRESS_TEST_NETNS } }),
  };
}

/**
 * `launch NAME --wait --timeout 600 ARGS` through `cli` (a guest-lane file's `proxies`
 * runner), timed: logs "LABEL: launch --wait took N s" with the steps it printed (the
 * figures docs/performance.md quotes), and returns the result with the seconds.
 */
export async function launchTimed(
  label: string,
  cli: (...args: string[]) => Promise<CliResult>,
  name: string,
  ...args: string[]
): Promise<{ r: CliResult; seconds: number }> {
  const t0 = Date.now();
  const r = await cli('launch', name, '--wait', '--timeout', '600', ...args);
  const seconds = (Date.now() - t0) / 1000;
  console.log(`${label}: launch --wait took ${seconds.toFixed(1)} s\n${r.stderr}`);
  return { r, seconds };
}
