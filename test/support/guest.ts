/**
 * What the guest lane's tests share: the real guest image (built by test/env/guest-image.sh
 * and cached by recipe hash), a config that boots it on the test network, and an HTTP
 * server inside the test namespace for a proxy to fetch from.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import type { TestEnv } from './env.js';

export interface GuestImage {
  path: string;
  sha256: string;
}

/** Builds (or takes from the cache) the guest image: minutes the first time, instant after. */
export function guestImage(): GuestImage {
  const path = execFileSync('bash', ['test/env/guest-image.sh'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 15 * 60_000 }).trim().split('\n').pop()!;
  return { path, sha256: execFileSync('sha256sum', [path], { encoding: 'utf8' }).split(' ')[0]! };
}

/** A config (YAML text) with the local host on the test pool and network, and the guest image as the default. */
export function guestConfig(env: TestEnv, image: GuestImage): string {
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
    // The test network is offline: the image ships the agent, so nothing is installed at boot.
    '  vendorData: |',
    '    #cloud-config',
    '    runcmd:',
    '      - [systemctl, enable, --now, qemu-guest-agent]',
    '',
  ].join('\n');
}

/** The page test/fixtures/guest-www serves, and how to find it in a response. */
export const GUEST_PAGE_MARK = 'egress guest lane';

/** Serves test/fixtures/guest-www on the bridge address inside the namespace; kill() it after. */
export function namespaceHttpServer(env: TestEnv, port = 18081): { child: ChildProcess; url: string } {
  const child = spawn('ip', ['netns', 'exec', env.EGRESS_TEST_NETNS, 'python3', '-m', 'http.server', String(port), '--bind', env.EGRESS_TEST_BRIDGE_IP, '--directory', 'test/fixtures/guest-www'], { stdio: 'ignore' });
  return { child, url: `http://${env.EGRESS_TEST_BRIDGE_IP}:${port}/index.html` };
}

/** Fetches `target` through the proxy at `proxyUrl`, from inside the namespace (the only place its address is reachable). */
export function fetchThroughProxy(env: TestEnv, proxyUrl: string, target: string): string {
  return execFileSync('ip', ['netns', 'exec', env.EGRESS_TEST_NETNS, 'curl', '-sS', '--max-time', '20', '--retry', '5', '--retry-all-errors', '-x', proxyUrl, target], { encoding: 'utf8', timeout: 120_000 });
}
