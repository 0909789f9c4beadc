/**
 * What both ways of (j) are held to alike: the same proxy port, the same time allowed to
 * launch, and the same proof that the proxy works (a page fetched through it from inside the
 * test namespace, not timed).
 */
import { spawnSync } from 'node:child_process';
import type { BenchEnv } from './environment.js';
import { GUEST_PAGE_MARK, httpProxyCurlArgs } from './guest-setup.js';

/** The proxy port, ours and the peer's. */
export const PORT = 3128;
/** Where the page server listens (bakedFigures starts it) on the test bridge. */
export const PAGE_PORT = 18092;
/** How long a launch may take, s, ours (--timeout) and the peer's (lease and port). */
export const LAUNCH_TIMEOUT_S = 600;

/** Fetches the page through the proxy from inside the namespace: the proxy forwards, with its credentials. */
export function checkForwards(env: BenchEnv, proxyUrl: string, who: string): void {
  const r = spawnSync(
    'ip',
    httpProxyCurlArgs(env, proxyUrl, `http://${env.EGRESS_TEST_BRIDGE_IP}:${PAGE_PORT}/index.html`),
    {
      encoding: 'utf8',
      timeout: 180_000,
    },
  );
  if (r.status !== 0 || !r.stdout.includes(GUEST_PAGE_MARK))
    throw new Error(`${who}: the proxy did not forward the page (curl exit ${r.status}: ${r.stderr.trim()})`);
}
