/** The benchmark needs the test environment (libvirtd, sshd): bench/run.sh brings it up. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchEnv {
  EGRESS_TEST_STATE: string;
  EGRESS_TEST_SOCKET: string;
  EGRESS_TEST_SSH_PORT: string;
  EGRESS_TEST_SSH_KEY: string;
  EGRESS_TEST_KNOWN_HOSTS: string;
  EGRESS_TEST_POOL: string;
  EGRESS_TEST_POOL_DIR: string;
}

export function benchEnv(): BenchEnv {
  const file = join(process.env.EGRESS_TEST_STATE ?? '/var/tmp/egress-desk-test', 'env.json');
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`bash test/env/up.sh\` first (npm run bench does)`);
  return JSON.parse(readFileSync(file, 'utf8')) as BenchEnv;
}
