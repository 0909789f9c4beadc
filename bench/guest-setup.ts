/**
 * What the benches that boot the real guest image ((j) bench/baked.ts, (l) bench/readiness.ts)
 * and the guest lane's tests (test/support/guest.ts re-exports it) share: the image itself,
 * the config that boots it on the test network, a site mirror's vendor-data, an HTTP server
 * inside the test namespace, curl through a proxy from inside it, and the built CLI run as a
 * child process on a throwaway home.
 *
 * It lives in bench/ because bench/ is part of the build (tsconfig.build.json) and test/ is
 * not: the benches run from dist/, the tests import from here as from bench/browser/.
 */
import { type ChildProcess, type ChildProcessByStdio, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { BenchEnv } from './environment.js';

/** The built CLI, run with `node` (from dist/bench/, the CLI is dist/electron/cli/main.js). */
export const CLI = fileURLToPath(new URL('../electron/cli/main.js', import.meta.url));
/** bench/port-watch.ts, built: a tight probe of a guest's port, run inside the test namespace. */
export const PORT_WATCH = fileURLToPath(new URL('./port-watch.js', import.meta.url));

/** The guest image file and its digest (test/env/guest-image.sh builds and caches it). */
export interface GuestImage {
  path: string;
  sha256: string;
}

/**
 * Builds (or takes from the cache) the guest image: minutes the first time, instant after.
 * `bare`: the image without tinyproxy and qemu-guest-agent (`guest-image.sh --bare`).
 */
export function guestImage(o: { bare?: boolean } = {}): GuestImage {
  const args = ['test/env/guest-image.sh', ...(o.bare ? ['--bare'] : [])];
  const path = execFileSync('bash', args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 15 * 60_000,
  })
    .trim()
    .split('\n')
    .pop()!;
  return { path, sha256: execFileSync('sha256sum', [path], { encoding: 'utf8' }).split(' ')[0]! };
}

/**
 * A config (YAML text) with the local host on the test pool and network, and the guest
 * image as the default; `vendorData` replaces the default, which installs nothing (the test
 * network has no distribution mirror: the default vendor-data's `packages` would fail).
 */
export function guestConfig(
  env: Pick<BenchEnv, 'EGRESS_TEST_POOL' | 'EGRESS_TEST_NETWORK'>,
  image: GuestImage,
  vendorData?: string,
): string {
  // Nothing to install: the image ships the agent (and the proxy's user-data starts it).
  const vendor = vendorData ?? '#cloud-config\n';
  return [
    'type: kvm',
    'kvm:',
    '  hosts:',
    `    - { name: local, address: local, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`,
    '  machineTypes:',
    '    small: { vcpus: 1, memoryMiB: 512, diskGiB: 4 }',
    '  images:',
    `    guest: { url: "file://${image.path}", sha256: ${image.sha256} }`,
    '  defaults: { machineType: small, image: guest }',
    '  vendorData: |',
    ...vendor
      .trimEnd()
      .split('\n')
      .map((line) => (line ? `    ${line}` : '')),
    '',
  ].join('\n');
}

/**
 * vendor-data as a site gives its mirror (docs/config.md, "A site mirror"): the flat
 * repository as the only apt source (Debian's cloud.cfg preserves sources.list unless told
 * otherwise), and the default vendor-data's agent, which a vendorData of one's own replaces.
 */
export function siteMirrorVendorData(mirrorUrl: string): string {
  return [
    '#cloud-config',
    'apt:',
    '  preserve_sources_list: false',
    '  sources_list: |',
    `    deb [trusted=yes] ${mirrorUrl} ./`,
    'packages:',
    '  - qemu-guest-agent',
    '',
  ].join('\n');
}

/** The page test/fixtures/guest-www serves, and how to find it in a response. */
export const GUEST_PAGE_MARK = 'egress guest lane';

/**
 * Serves `directory` (default test/fixtures/guest-www) on the bridge address inside the
 * namespace; kill() it after. `requests` holds the request lines it logged so far.
 */
export function namespaceHttpServer(
  env: Pick<BenchEnv, 'EGRESS_TEST_NETNS' | 'EGRESS_TEST_BRIDGE_IP'>,
  port = 18081,
  directory = 'test/fixtures/guest-www',
): { child: ChildProcess; url: string; requests: () => string[] } {
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      env.EGRESS_TEST_NETNS,
      'python3',
      '-m',
      'http.server',
      String(port),
      '--bind',
      env.EGRESS_TEST_BRIDGE_IP,
      '--directory',
      directory,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
  });
  return {
    child,
    url: `http://${env.EGRESS_TEST_BRIDGE_IP}:${port}/index.html`,
    requests: () => log.split('\n').filter((l) => l.includes('"GET ')),
  };
}

/**
 * The argv of `ip` that runs curl inside the test namespace (the only place the guests'
 * addresses are reachable), silent but for errors and capped at 20 s: `proxyArgs` name the
 * proxy and how to use it, `target` what to fetch through it.
 */
export function netnsCurlArgs(
  env: Pick<BenchEnv, 'EGRESS_TEST_NETNS'>,
  proxyArgs: readonly string[],
  target: string,
): string[] {
  return ['netns', 'exec', env.EGRESS_TEST_NETNS, 'curl', '-sS', '--max-time', '20', ...proxyArgs, target];
}

/**
 * {@link netnsCurlArgs} through the HTTP proxy at `proxyUrl`, retried on any error, refused
 * connections included: the fetch proves the proxy forwards, it does not time its first answer.
 */
export function httpProxyCurlArgs(
  env: Pick<BenchEnv, 'EGRESS_TEST_NETNS'>,
  proxyUrl: string,
  target: string,
): string[] {
  return netnsCurlArgs(env, ['--retry', '5', '--retry-all-errors', '-x', proxyUrl], target);
}

/** The test network as a CIDR block (its bridge address's /24): a proxy's allow list for clients in the namespace. */
export function testNetworkCidr(env: Pick<BenchEnv, 'EGRESS_TEST_BRIDGE_IP'>): string {
  return `${env.EGRESS_TEST_BRIDGE_IP.split('.').slice(0, 3).join('.')}.0/24`;
}

/**
 * The environment of a {@link CLI} child on the throwaway home `dir` (its data in `dir/data`):
 * nothing of this machine's HOME, and readiness probed from inside the test namespace, where
 * the guests' addresses are.
 */
export function guestCliEnv(env: Pick<BenchEnv, 'EGRESS_TEST_NETNS'>, dir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: dir,
    EGRESS_DESK_HOME: join(dir, 'data'),
    EGRESS_DESK_PROBE_NETNS: env.EGRESS_TEST_NETNS,
  };
}

/**
 * `proxies launch NAME --wait --timeout S --port PORT --allow <the test network>` by the
 * built {@link CLI} with `config` and the child environment `childEnv` (see {@link guestCliEnv}),
 * started at once; its stdout and stderr are piped, for the caller to read its progress lines
 * as they are written.
 */
export function spawnLaunchWait(
  env: Pick<BenchEnv, 'EGRESS_TEST_BRIDGE_IP'>,
  o: { config: string; childEnv: NodeJS.ProcessEnv; name: string; timeoutS: number; port: number },
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(
    process.execPath,
    [
      CLI,
      '--config',
      o.config,
      'proxies',
      'launch',
      o.name,
      '--wait',
      '--timeout',
      String(o.timeoutS),
      '--port',
      String(o.port),
      '--allow',
      testNetworkCidr(env),
    ],
    { env: o.childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** Resolves with the child's exit code once it has exited (at once when it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );
}
