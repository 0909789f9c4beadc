/**
 * This checkout as the test environment's non-root users reach it. They may not be able to
 * enter the directory the checkout is in (a clone under /root, or in what `mktemp -d`
 * makes, is 0700 root's), so test/env/up.sh bind-mounts the checkout read-only under the
 * state directory (test/env/checkout.sh) and the non-root lanes run the build from there:
 * the same files, no copy, no permission of the person's own directories changed.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cliBin, repoRoot } from './dist.js';
import { testEnv } from './env.js';

/** The checkout's own path, as people write it (repoRoot ends with a slash). */
const root = repoRoot.replace(/\/$/, '');

/** The part of a test user this needs (cli.ts's RunAs, which imports this file). */
interface User {
  name: string;
  uid: number;
  gid: number;
}

const same = (a: string, b: string): boolean => {
  const x = statSync(a);
  const y = statSync(b);
  return x.dev === y.dev && x.ino === y.ino;
};

/**
 * The view of this checkout under the state directory: found by device and inode (a bind
 * mount's root is the directory it shows), so a view of another checkout never answers.
 */
export function checkoutView(): string {
  const dir = testEnv().EGRESS_TEST_CHECKOUTS;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // no view at all: the error below says what to do
  }
  const view = names.map((n) => join(dir, n)).find((p) => !p.endsWith('.source') && same(p, repoRoot));
  if (!view) {
    throw new Error(
      `The non-root lanes run the build as the test users from a read-only view of this checkout under ${dir}, and there is none for ${root}: run \`bash test/env/checkout.sh\` (or \`bash test/env/up.sh\`) from this checkout as root (npm test does).`,
    );
  }
  return view;
}

/** Per user: the path of bin/egress-desk.js it runs, or the error that says why it cannot. */
const checked = new Map<number, string | Error>();

/**
 * The CLI entry point `user` runs: bin/egress-desk.js in the checkout's view, once `user`
 * has shown it can start node on it (node itself, the view and the file must be open to it).
 * Throws one line that says why and what to do, rather than letting the run fail later
 * with "Cannot find module" and an empty stdout.
 */
export function cliBinFor(user: User): string {
  let found = checked.get(user.uid);
  if (found === undefined) {
    found = probe(user);
    checked.set(user.uid, found);
  }
  if (found instanceof Error) throw found;
  return found;
}

function probe(user: User): string | Error {
  let bin: string;
  try {
    bin = join(checkoutView(), relative(repoRoot, cliBin));
  } catch (err) {
    return err as Error;
  }
  const r = spawnSync(
    'setpriv',
    [
      `--reuid=${user.uid}`,
      `--regid=${user.gid}`,
      '--init-groups',
      '--',
      process.execPath,
      '-e',
      'require("node:fs").accessSync(process.argv[1], require("node:fs").constants.R_OK)',
      bin,
    ],
    {
      cwd: '/',
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    },
  );
  if (r.status === 0) return bin;
  const why =
    (r.error?.message ?? r.stderr).split('\n').find((l) => /denied|EACCES|ENOENT|failed/i.test(l)) ??
    `exit ${r.status}`;
  return new Error(
    `${user.name} cannot run ${process.execPath} ${bin} (${why.trim()}): node and this checkout's files must be readable by others (the view shows the checkout's own permissions; \`chmod -R o+rX ${root}\`, and a node outside /root).`,
  );
}
