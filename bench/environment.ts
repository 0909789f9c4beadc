/** The benchmark needs the test environment (libvirtd, sshd): bench/run.sh brings it up. */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchEnv {
  EGRESS_TEST_STATE: string;
  EGRESS_TEST_SOCKET: string;
  EGRESS_TEST_SSH_PORT: string;
  EGRESS_TEST_SSH_KEY: string;
  EGRESS_TEST_KNOWN_HOSTS: string;
  EGRESS_TEST_HOST_KEY_PUB: string;
  EGRESS_TEST_POOL: string;
  EGRESS_TEST_POOL_DIR: string;
  EGRESS_TEST_NETNS: string;
  EGRESS_TEST_NETWORK: string;
  EGRESS_TEST_BRIDGE_IP: string;
}

const envFile = () => join(process.env.EGRESS_TEST_STATE ?? '/var/tmp/egress-desk-test', 'env.json');

/** Why the test environment cannot be used (its facts file or libvirtd missing), or undefined when it is up. */
export function testEnvMissing(): string | undefined {
  const file = envFile();
  if (!existsSync(file)) return `${file} is missing`;
  const r = spawnSync('virsh', ['-c', 'qemu:///system', 'version'], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0)
    return `libvirtd at qemu:///system does not answer${r.stderr ? `: ${r.stderr.trim().split('\n')[0]}` : ''}`;
  return undefined;
}

export function benchEnv(): BenchEnv {
  const file = envFile();
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`bash test/env/up.sh\` first (npm run bench does)`);
  return JSON.parse(readFileSync(file, 'utf8')) as BenchEnv;
}
