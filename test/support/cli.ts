/** Runs the real `egress-desk` binary as a child process, as this process's user or as another one. */
import { spawn } from 'node:child_process';
import { cliBin } from './dist.js';
import { cliBinFor } from './user-checkout.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A local account to run the CLI as (root only): its ids become the child's, with its groups from the user database. */
export interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

/**
 * Runs the built CLI. With `as` (root only) it runs as that user, from the checkout's view
 * that user can reach (test/support/user-checkout.ts: it fails at once, saying why, when the
 * user cannot), in its home unless `cwd` says otherwise: the checkout itself may be closed
 * to the user.
 */
export async function runCliProcess(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  as?: RunAs,
): Promise<CliResult> {
  const home = env.HOME ?? process.env.HOME ?? '/';
  if (!as)
    return collect(process.execPath, [cliBin, ...args], { PATH: process.env.PATH ?? '', HOME: home, ...env }, cwd);
  // setpriv --init-groups gives the child the user's supplementary groups (libvirt, say), as a
  // login does; node's own uid/gid options would drop them all.
  const argv = [
    `--reuid=${as.uid}`,
    `--regid=${as.gid}`,
    '--init-groups',
    '--',
    process.execPath,
    cliBinFor(as),
    ...args,
  ];
  return collect(
    'setpriv',
    argv,
    { PATH: process.env.PATH ?? '', HOME: home, USER: as.name, LOGNAME: as.name, ...env },
    cwd ?? home,
  );
}

/** Runs `command`, resolving with its exit code and everything it printed. */
function collect(command: string, argv: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The argv that runs the built CLI inside network namespace `netns` (`ip netns exec`, root
 * only): the whole backend then sits where the guests' addresses are, as on a workstation
 * with a route to them, so readiness and health probes connect directly. The libvirt
 * socket is a path on the filesystem, which a network namespace does not change.
 */
export function cliInNetns(netns: string, args: string[]): [string, string[]] {
  return ['ip', ['netns', 'exec', netns, process.execPath, cliBin, ...args]];
}

/** {@link runCliProcess} inside network namespace `netns` (see {@link cliInNetns}). */
export function runCliInNetns(netns: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  const [command, argv] = cliInNetns(netns, args);
  return collect(command, argv, { PATH: process.env.PATH ?? '', HOME: env.HOME ?? process.env.HOME ?? '/', ...env });
}

/** Who runs the CLI and where: what {@link cliRunner} needs. */
export interface CliRunnerOptions {
  /** The person's home (HOME) and, unless `cwd` says otherwise, the working directory. */
  home: string;
  /** The data directory (EGRESS_DESK_HOME); default: `home`. */
  data?: string;
  /** A config file passed as `--config`; default: none (the data directory's own). */
  config?: string;
  cwd?: string;
  /** More environment. */
  env?: Record<string, string>;
  as?: RunAs;
}

/**
 * `cli(...args)` for a test file: the built CLI with HOME, EGRESS_DESK_HOME and `--config`
 * set once. `options` may be a function, read at each call, for files whose directories are
 * made anew before each test.
 */
export function cliRunner(
  options: CliRunnerOptions | (() => CliRunnerOptions),
): (...args: string[]) => Promise<CliResult> {
  return (...args) => {
    const o = typeof options === 'function' ? options() : options;
    const config = o.config === undefined ? [] : ['--config', o.config];
    return runCliProcess(
      [...config, ...args],
      { HOME: o.home, EGRESS_DESK_HOME: o.data ?? o.home, ...o.env },
      o.cwd ?? o.home,
      o.as,
    );
  };
}
