/**
 * The non-root users of the test environment (test/env/users.sh): one in the libvirt group,
 * one outside it. Tests run the CLI as them from a home of their own, and check that what
 * the run leaves behind belongs to them.
 */
import { chownSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunAs } from './cli.js';
import type { TestEnv } from './env.js';
import { tempDir } from './temp-dir.js';

export interface TestUser extends RunAs {
  /** Its own SSH client key, authorised for this user only on the test sshd. */
  sshKey: string;
}

export function testUsers(env: TestEnv): { member: TestUser; outsider: TestUser } {
  return {
    member: {
      name: env.EGRESS_TEST_MEMBER_USER,
      uid: Number(env.EGRESS_TEST_MEMBER_UID),
      gid: Number(env.EGRESS_TEST_MEMBER_GID),
      sshKey: env.EGRESS_TEST_MEMBER_SSH_KEY,
    },
    outsider: {
      name: env.EGRESS_TEST_OUTSIDER_USER,
      uid: Number(env.EGRESS_TEST_OUTSIDER_UID),
      gid: Number(env.EGRESS_TEST_OUTSIDER_GID),
      sshKey: env.EGRESS_TEST_OUTSIDER_SSH_KEY,
    },
  };
}

/** A fresh home owned by `user` (0700), with an empty `.ssh` (0700). Created by root, so this must run as root. */
export function userHome(user: RunAs, prefix: string): string {
  const home = tempDir(prefix);
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  chownSync(home, user.uid, user.gid);
  chownSync(join(home, '.ssh'), user.uid, user.gid);
  return home;
}

/** Hands files root made for a test (a config, an image, a known_hosts copy) to `user`. */
export function giveTo(user: RunAs, ...paths: string[]): void {
  for (const p of paths) chownSync(p, user.uid, user.gid);
}

/** Hands `dir` and everything under it to `user`. */
export function giveTree(user: RunAs, dir: string): void {
  chownSync(dir, user.uid, user.gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) giveTree(user, path);
    else chownSync(path, user.uid, user.gid);
  }
}

/** One line per entry under `dir` (itself included) that is not owned by `uid` or is open to others: `path uid mode`. */
export function foreignOrOpenEntries(dir: string, uid: number): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    const st = lstatSync(path);
    const mode = st.mode & 0o777;
    const wanted = st.isDirectory() ? 0o700 : 0o600;
    if (st.uid !== uid || mode !== wanted) found.push(`${path} uid=${st.uid} mode=${mode.toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}
