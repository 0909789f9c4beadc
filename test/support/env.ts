/**
 * The facts of the test environment that test/env/up.sh brings up (libvirtd in a network
 * namespace, sshd on 127.0.0.1 with throwaway keys). A lane that needs it fails, loudly,
 * when it is not up: it is never skipped.
 *
 * Everything a test knows about this machine comes from here (or from asking the host),
 * never from a literal: under CI every run creates new keys, pools and networks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const TestEnvSchema = z.object({
  EGRESS_TEST_STATE: z.string(),
  EGRESS_TEST_NETNS: z.string(),
  EGRESS_TEST_SOCKET: z.string(),
  EGRESS_TEST_SSH_PORT: z.string(),
  EGRESS_TEST_SSH_KEY: z.string(),
  EGRESS_TEST_SSH_KEY_ENCRYPTED: z.string(),
  EGRESS_TEST_SSH_PASSPHRASE: z.string(),
  EGRESS_TEST_KNOWN_HOSTS: z.string(),
  EGRESS_TEST_KNOWN_HOSTS_MISMATCH: z.string(),
  /** `SHA256:…` fingerprint of the sshd host key. */
  EGRESS_TEST_HOST_KEY_SHA256: z.string(),
  /** The sshd host public key file, OpenSSH `.pub` form (`ssh-ed25519 AAAA… comment`). */
  EGRESS_TEST_HOST_KEY_PUB: z.string(),
  EGRESS_TEST_POOL: z.string(),
  EGRESS_TEST_POOL_DIR: z.string(),
  EGRESS_TEST_NETWORK: z.string(),
  EGRESS_TEST_BRIDGE_IP: z.string(),
  /** A user in the libvirt group (qemu:///system through polkit), with its own key on the test sshd (test/env/users.sh). */
  EGRESS_TEST_MEMBER_USER: z.string(),
  EGRESS_TEST_MEMBER_UID: z.string(),
  EGRESS_TEST_MEMBER_GID: z.string(),
  EGRESS_TEST_MEMBER_SSH_KEY: z.string(),
  /** A user outside the libvirt group (polkit refuses it), with its own key on the test sshd. */
  EGRESS_TEST_OUTSIDER_USER: z.string(),
  EGRESS_TEST_OUTSIDER_UID: z.string(),
  EGRESS_TEST_OUTSIDER_GID: z.string(),
  EGRESS_TEST_OUTSIDER_SSH_KEY: z.string(),
  EGRESS_TEST_LIBVIRT_GROUP: z.string(),
  /** Where up.sh bind-mounts checkouts, read-only, for the non-root users (test/env/checkout.sh, test/support/user-checkout.ts). */
  EGRESS_TEST_CHECKOUTS: z.string(),
});

/** env.json as test/env/up.sh writes it (test/env/README.md lists the keys). */
export type TestEnv = z.infer<typeof TestEnvSchema>;

export function testEnv(): TestEnv {
  const state = process.env.EGRESS_TEST_STATE ?? '/var/tmp/egress-desk-test';
  const file = join(state, 'env.json');
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: the test environment is not up. Run \`bash test/env/up.sh\` (npm test does).`);
  }
  const parsed = TestEnvSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    // An env.json from an older up.sh lacks keys added since: running up.sh again rewrites it.
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(
      `${file} does not hold what the tests need (${problems}). Run \`bash test/env/up.sh\` again to rewrite it.`,
    );
  }
  return parsed.data;
}
