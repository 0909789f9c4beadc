/**
 * The facts of the test environment that test/env/up.sh brings up (libvirtd in a network
 * namespace, sshd on 127.0.0.1 with throwaway keys). A lane that needs it fails, loudly,
 * when it is not up: it is never skipped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestEnv {
  EGRESS_TEST_STATE: string;
  EGRESS_TEST_NETNS: string;
  EGRESS_TEST_SOCKET: string;
  EGRESS_TEST_SSH_PORT: string;
  EGRESS_TEST_SSH_KEY: string;
  EGRESS_TEST_SSH_KEY_ENCRYPTED: string;
  EGRESS_TEST_SSH_PASSPHRASE: string;
  EGRESS_TEST_KNOWN_HOSTS: string;
  EGRESS_TEST_KNOWN_HOSTS_MISMATCH: string;
  EGRESS_TEST_HOST_KEY_SHA256: string;
  EGRESS_TEST_POOL: string;
  EGRESS_TEST_POOL_DIR: string;
  EGRESS_TEST_NETWORK: string;
  EGRESS_TEST_BRIDGE_IP: string;
  /** A user in the libvirt group (qemu:///system through polkit), with its own key on the test sshd. */
  EGRESS_TEST_MEMBER_USER: string;
  EGRESS_TEST_MEMBER_UID: string;
  EGRESS_TEST_MEMBER_GID: string;
  EGRESS_TEST_MEMBER_SSH_KEY: string;
  /** A user outside the libvirt group (polkit refuses it), with its own key on the test sshd. */
  EGRESS_TEST_OUTSIDER_USER: string;
  EGRESS_TEST_OUTSIDER_UID: string;
  EGRESS_TEST_OUTSIDER_GID: string;
  EGRESS_TEST_OUTSIDER_SSH_KEY: string;
  EGRESS_TEST_LIBVIRT_GROUP: string;
}

export function testEnv(): TestEnv {
  const state = process.env.EGRESS_TEST_STATE ?? '/var/tmp/egress-desk-test';
  const file = join(state, 'env.json');
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: the test environment is not up. Run \`bash test/env/up.sh\` (npm test does).`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as TestEnv;
}
