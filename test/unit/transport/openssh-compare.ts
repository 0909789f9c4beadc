/**
 * OpenSSH's own resolution (`ssh -G`, which prints the effective settings and touches no
 * network) and ours, side by side: the sandbox both run in, the cases' files, ssh's answer
 * and the comparison, setting by setting, jump hops included. Used by the agreement test
 * (ssh-config-openssh.test.ts) and by the test of the deliberate differences.
 *
 * Honesty of the comparison: ssh takes `~` and `%d` from the passwd entry, but `~` in Include
 * (glob(3)) and `${HOME}` from $HOME. So ssh runs as this process's user with HOME set to a
 * throwaway directory, and our resolver gets the same two: the passwd home as `homeDir`, the
 * throwaway one as env.HOME. No file under the real home is read: every Include is absolute
 * or under the throwaway HOME. `ssh -G` prints IdentityFile unexpanded, so for the cases that
 * test token expansion in key paths, `ssh -vvv -o ProxyCommand=true` (a connection "through"
 * `true`: nothing leaves the machine) prints the expanded paths it loads.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { readServices } from '../../../electron/transport/ssh-config-load.js';
import { parseProxyJump, type SshHostSettings, type SshLocalContext } from '../../../electron/transport/ssh-config.js';
import { tempDir } from '../../support/temp-dir.js';

/** Whether there is an ssh to compare with (a test without it is skipped, and says why). */
export const sshPresent = spawnSync('ssh', ['-V'], { encoding: 'utf8' }).error === undefined;

/** One config to resolve both ways. */
export interface Case {
  name: string;
  /** The config; `@D` is the case's directory, `@H` the throwaway HOME, `@U` the local user. */
  config: string;
  alias: string;
  /** Like -l, -p, -i (the app's sshUser, sshPort, identityFile). */
  user?: string;
  port?: number;
  identity?: string;
  /** Further files, relative to `@D` unless they start with `@H`. */
  files?: Record<string, string>;
  /** Also compare the expanded key paths (ssh -vvv through ProxyCommand=true). */
  expandKeys?: boolean;
}

/** The throwaway places both sides resolve in, set before the file's tests (useOpenSshSandbox). */
export interface OpenSshSandbox {
  /** Everything is written below it: each case in a directory of its own. */
  root: string;
  /** The throwaway HOME, for ssh (its $HOME) and for our loader (`homeDir`). */
  home: string;
  /** Our resolver's view of this machine: the passwd home and user, and ssh's environment. */
  local: SshLocalContext;
}

const sandbox: OpenSshSandbox = { root: '', home: '', local: undefined as unknown as SshLocalContext };
/** The environment ssh runs with; our resolver sees the same as `local.env`. */
let sshEnv: Record<string, string>;

/**
 * Registers the hooks that make the sandbox before the file's tests and remove it after;
 * call it once at the top of a test file. The object answered is filled in by then.
 */
export function useOpenSshSandbox(): Readonly<OpenSshSandbox> {
  beforeAll(async () => {
    const root = tempDir('egress-sshg-');
    const home = join(root, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const me = userInfo();
    sshEnv = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      SSH_AUTH_SOCK: join(root, 'agent.sock'),
      EGTEST_VAR: join(root, 'var'),
    };
    sandbox.root = root;
    sandbox.home = home;
    sandbox.local = {
      homeDir: me.homedir,
      localUser: me.username,
      uid: me.uid,
      localHostName: hostname(),
      env: sshEnv,
      services: await readServices(),
    };
  });

  afterAll(() => {
    if (sandbox.root) rmSync(sandbox.root, { recursive: true, force: true });
  });
  return sandbox;
}

/** A case's text with `@D`, `@H` and `@U` filled in. */
export function fill(text: string, dir: string): string {
  return text.replaceAll('@D', dir).replaceAll('@H', sandbox.home).replaceAll('@U', userInfo().username);
}

/** Writes a case's files; returns the config's path. */
export function setUp(c: Case, index: number): { dir: string; config: string } {
  const dir = join(sandbox.root, `case-${index}`);
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'config');
  writeFileSync(config, fill(c.config, dir));
  for (const [name, text] of Object.entries(c.files ?? {})) {
    const path = name.startsWith('@H') ? fill(name, dir) : join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, fill(text, dir));
  }
  if (c.identity) writeFileSync(fill(c.identity, dir), 'not a key\n');
  return { dir, config };
}

/** What `ssh -G` answered: its exit status, its complaints, and each setting's values (keys lower-cased). */
export interface SshG {
  status: number | null;
  stderr: string;
  values: Map<string, string[]>;
}

/** `ssh -G` for `alias` under `config`, with the options a hop or the app would give (-l, -p, -i, -J). */
export function sshG(
  config: string,
  alias: string,
  opts: { user?: string; port?: number; identity?: string; jump?: string },
): SshG {
  const args = ['-G', '-F', config];
  if (opts.user !== undefined) args.push('-l', opts.user);
  if (opts.port !== undefined) args.push('-p', String(opts.port));
  if (opts.identity !== undefined) args.push('-i', opts.identity);
  if (opts.jump !== undefined) args.push('-J', opts.jump);
  args.push(alias);
  const r = spawnSync('ssh', args, { encoding: 'utf8', env: sshEnv, timeout: 20_000 });
  const values = new Map<string, string[]>();
  for (const line of r.stdout.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp <= 0) continue;
    const key = line.slice(0, sp).toLowerCase();
    values.set(key, [...(values.get(key) ?? []), line.slice(sp + 1)]);
  }
  return { status: r.status, stderr: r.stderr, values };
}

/** The key paths ssh loads, expanded (debug1 "identity file … type"), through a ProxyCommand that is just `true`. */
export function sshLoadedKeys(config: string, alias: string): string[] {
  const r = spawnSync('ssh', ['-vvv', '-F', config, '-o', 'ProxyCommand=true', '-o', 'BatchMode=yes', alias], {
    encoding: 'utf8',
    env: sshEnv,
    timeout: 20_000,
  });
  return [...r.stderr.matchAll(/identity file (\S+) type/g)].map((m) => m[1]!).filter((p) => !p.endsWith('-cert'));
}

/** Default keys of ssh's that ssh2 cannot use (security keys, XMSS): our default list leaves them out on purpose. */
const UNUSABLE_DEFAULTS = ['~/.ssh/id_ecdsa_sk', '~/.ssh/id_ed25519_sk', '~/.ssh/id_xmss'];

/** Compares every setting the transport uses; returns the differences (empty when they agree). */
export function compare(ours: SshHostSettings, ssh: SshG, what: string): string[] {
  const diffs: string[] = [];
  const one = (key: string): string | undefined => ssh.values.get(key)?.[0];
  const eq = (name: string, a: unknown, b: unknown): void => {
    if (JSON.stringify(a) !== JSON.stringify(b))
      diffs.push(`${what} ${name}: ours ${JSON.stringify(a)}, ssh ${JSON.stringify(b)}`);
  };
  eq('hostname', ours.hostName, one('hostname'));
  eq('port', String(ours.port), one('port'));
  eq('user', ours.user, one('user'));
  const sshKeys = (ssh.values.get('identityfile') ?? []).filter((k) => k !== 'none' && !UNUSABLE_DEFAULTS.includes(k));
  eq(
    'identityfile',
    ours.identities.map((i) => (i.origin.kind === 'app' ? i.path : i.written)),
    sshKeys,
  );
  eq('userknownhostsfile', ours.userKnownHostsFiles.join(' ') || 'none', one('userknownhostsfile'));
  eq('globalknownhostsfile', ours.globalKnownHostsFiles.join(' ') || 'none', one('globalknownhostsfile'));
  eq('hostkeyalias', ours.hostKeyName, one('hostkeyalias') ?? one('hostname'));
  eq('identitiesonly', ours.identitiesOnly ? 'yes' : 'no', one('identitiesonly'));
  eq('hashknownhosts', ours.hashKnownHosts ? 'yes' : 'no', one('hashknownhosts'));
  const agent = one('identityagent');
  let sshAgent: string | undefined = sshEnv.SSH_AUTH_SOCK;
  if (agent === 'none') sshAgent = undefined;
  else if (agent !== undefined && agent !== 'SSH_AUTH_SOCK')
    sshAgent = agent.startsWith('$') ? sshEnv[agent.slice(1)] : agent;
  eq('identityagent', ours.agentSocket, sshAgent);
  eq('proxycommand', ours.proxyCommand, one('proxycommand'));
  const timeout = one('connecttimeout');
  eq(
    'connecttimeout',
    ours.connectTimeoutMs === undefined ? undefined : String(ours.connectTimeoutMs / 1000),
    timeout === 'none' || timeout === '0' ? undefined : timeout,
  );
  eq('serveraliveinterval', String((ours.keepaliveIntervalMs ?? 0) / 1000), one('serveraliveinterval'));
  eq('serveralivecountmax', String(ours.keepaliveCountMax ?? 3), one('serveralivecountmax'));
  return diffs;
}

/** Compares a host and, hop by hop, its jump chain: each hop resolved by ssh as `ssh -J` would spawn it. */
export function compareChain(ours: SshHostSettings, ssh: SshG, config: string, what: string): string[] {
  const diffs = compare(ours, ssh, what);
  const jumpLine = ssh.values.get('proxyjump')?.[0];
  const hops = jumpLine === undefined ? [] : parseProxyJump(jumpLine);
  const last = hops.at(-1);
  if (last === undefined || ours.jump === undefined) {
    if ((last === undefined) !== (ours.jump === undefined))
      diffs.push(`${what} proxyjump: ours ${ours.jump?.alias ?? 'none'}, ssh ${jumpLine ?? 'none'}`);
    return diffs;
  }
  const extra = jumpLine!.includes(',') ? jumpLine!.slice(0, jumpLine!.lastIndexOf(',')) : undefined;
  const hop = sshG(config, last.host, {
    ...(last.user !== undefined ? { user: last.user } : {}),
    ...(last.port !== undefined ? { port: last.port } : {}),
    ...(extra !== undefined ? { jump: extra } : {}),
  });
  if (ours.jump.alias !== last.host) diffs.push(`${what} jump alias: ours ${ours.jump.alias}, ssh ${last.host}`);
  return [...diffs, ...compareChain(ours.jump, hop, config, `${what} > ${last.host}`)];
}
