/**
 * A host's effective SSH settings, resolved as OpenSSH resolves them: the app's explicit
 * fields first, then ~/.ssh/config, then /etc/ssh/ssh_config, then OpenSSH's defaults.
 *
 * Pure: it works on file texts already read (ssh-config-load.ts reads them). The ssh-config
 * package parses; the evaluation is ours, because the package's `compute()` would run
 * `Match exec` commands and `nslookup` for CanonicalizeHostName, and its glob differs from
 * OpenSSH's. What is evaluated:
 *
 * - `Host` sections, patterns with `*`, `?` and `!`; for each keyword the first value
 *   obtained wins; `IdentityFile` accumulates.
 * - `Include` (files pre-read by the loader), with OpenSSH's rule that an Include inside a
 *   non-matching block contributes nothing.
 * - `Match` blocks are out of scope: their contents are ignored.
 */
import SSHConfig, { type Line } from 'ssh-config';
import { SshConfigError } from './ssh-errors.js';
import { hostMatches } from './ssh-patterns.js';

/** A host as the app config names it. */
export interface SshTarget {
  /** An ssh_config alias, a host name or an address. */
  address: string;
  /** Overrides ssh_config's User. */
  sshUser?: string;
  /** Overrides ssh_config's Port. */
  sshPort?: number;
  /** Replaces ssh_config's IdentityFile list. `~` is expanded. */
  identityFile?: string;
}

/** One config file's path and text. */
export interface SshConfigFile {
  path: string;
  text: string;
}

/** The config texts to resolve against. */
export interface SshConfigSources {
  /** ~/.ssh/config. */
  user?: SshConfigFile;
  /** /etc/ssh/ssh_config. */
  system?: SshConfigFile;
  /** For each Include pattern (absolute, see {@link includePattern}), the files it names, in order. */
  includes?: ReadonlyMap<string, readonly SshConfigFile[]>;
}

/** Facts about the local user that resolution needs. */
export interface SshLocalContext {
  homeDir: string;
  localUser: string;
  /** For SSH_AUTH_SOCK and `${VAR}` in paths. */
  env?: Readonly<Record<string, string | undefined>>;
  uid?: number;
  /** known_hosts files where ssh_config names none. Default ~/.ssh/known_hosts, ~/.ssh/known_hosts2. */
  userKnownHostsFiles?: readonly string[];
  /** System known_hosts files where ssh_config names none. Default /etc/ssh/ssh_known_hosts{,2}. */
  globalKnownHostsFiles?: readonly string[];
}

/** Where the identity files came from: decides whether a missing one is an error. */
export type IdentitySource = 'explicit' | 'ssh_config' | 'default';

/** A host's effective SSH settings. */
export interface SshHostSettings {
  /** The name as given (the app's `address`). */
  alias: string;
  /** Where to connect: ssh_config's HostName, else the alias. */
  hostName: string;
  port: number;
  user: string;
  /** Absolute paths, in the order to try; missing files are skipped unless the source is `explicit`. */
  identityFiles: string[];
  identitySource: IdentitySource;
  /** IdentitiesOnly: offer only agent keys that match an identity file. */
  identitiesOnly: boolean;
  /** The agent's socket (IdentityAgent, else SSH_AUTH_SOCK); undefined = no agent. */
  agentSocket: string | undefined;
  /** The hop to tunnel through (ProxyJump's last host, itself reached through the ones before it). */
  jump: SshHostSettings | undefined;
  /** Set when ssh_config uses ProxyCommand, which this transport does not run. */
  proxyCommand: string | undefined;
  /** Read for host keys; the first is where a newly trusted key is written. */
  userKnownHostsFiles: string[];
  /** Read for host keys, never written. */
  globalKnownHostsFiles: string[];
  /** The name to look host keys up by: HostKeyAlias, else HostName. */
  hostKeyName: string;
  /** The port of that lookup: the real port, or 22 under HostKeyAlias (OpenSSH uses the alias bare, never `[alias]:port`). */
  hostKeyPort: number;
  hashKnownHosts: boolean;
  connectTimeoutMs: number | undefined;
  keepaliveIntervalMs: number | undefined;
  keepaliveCountMax: number | undefined;
}

/** One ProxyJump hop as written: `[user@]host[:port]` or `ssh://[user@]host[:port]`. */
export interface JumpSpec {
  host: string;
  user?: string;
  port?: number;
}

const MAX_DEPTH = 16;
const DEFAULT_IDENTITIES = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

/** Resolves a host's effective settings, jump hosts included. Throws {@link SshConfigError} on values OpenSSH would reject. */
export function resolveSshHost(target: SshTarget, sources: SshConfigSources, local: SshLocalContext): SshHostSettings {
  return resolve(target, sources, local, 0, undefined);
}

function resolve(target: SshTarget, sources: SshConfigSources, local: SshLocalContext, depth: number, jumpOverride: JumpSpec[] | undefined): SshHostSettings {
  if (depth > 8) throw new SshConfigError(`ProxyJump for ${target.address} nests more than 8 hops deep: is there a loop in ~/.ssh/config?`);
  const alias = target.address.trim();
  if (alias === '') throw new SshConfigError('the host address is empty');
  const c = collect(alias.toLowerCase(), sources, local);
  const env = local.env ?? {};

  const rawHostName = c.first('hostname');
  const hostName = rawHostName !== undefined ? expandTokens(rawHostName, { h: alias }) : alias;
  const user = target.sshUser ?? c.first('user') ?? local.localUser;
  const port = target.sshPort ?? parsePort(c.first('port'), alias) ?? 22;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new SshConfigError(`the SSH port for ${alias} must be 1–65535 (got ${port})`);
  const hostKeyAlias = c.first('hostkeyalias');
  const tokens: Record<string, string> = {
    d: local.homeDir, u: local.localUser, h: hostName, r: user, p: String(port), n: alias, k: hostKeyAlias ?? alias,
    ...(local.uid !== undefined ? { i: String(local.uid) } : {}),
  };
  const path = (p: string): string => expandPath(p, tokens, local.homeDir, env);

  let identityFiles: string[];
  let identitySource: IdentitySource;
  if (target.identityFile !== undefined && target.identityFile.trim() !== '') {
    identityFiles = [path(target.identityFile.trim())];
    identitySource = 'explicit';
  } else if (c.identityFiles.length > 0) {
    identityFiles = unique(c.identityFiles.filter((f) => f.toLowerCase() !== 'none').map(path));
    identitySource = 'ssh_config';
  } else {
    identityFiles = DEFAULT_IDENTITIES.map((n) => `${local.homeDir}/.ssh/${n}`);
    identitySource = 'default';
  }

  const agentSetting = c.first('identityagent');
  let agentSocket: string | undefined = nonEmpty(env.SSH_AUTH_SOCK);
  if (agentSetting !== undefined) {
    if (agentSetting.toLowerCase() === 'none') agentSocket = undefined;
    else if (agentSetting === 'SSH_AUTH_SOCK') agentSocket = nonEmpty(env.SSH_AUTH_SOCK);
    else if (agentSetting.startsWith('$') && !agentSetting.startsWith('${')) agentSocket = nonEmpty(env[agentSetting.slice(1)]);
    else agentSocket = path(agentSetting);
  }

  // ProxyJump and ProxyCommand share one slot in OpenSSH: whichever is obtained first wins.
  const jumpValue = c.first('proxyjump');
  const commandValue = c.all('proxycommand');
  const jumpFirst = jumpValue !== undefined && (commandValue === undefined || c.index('proxyjump') < c.index('proxycommand'));
  let chain: JumpSpec[] = [];
  let proxyCommand: string | undefined;
  if (jumpOverride !== undefined && jumpOverride.length > 0) chain = jumpOverride;
  else if (jumpFirst) chain = jumpValue.toLowerCase() === 'none' ? [] : parseProxyJump(jumpValue);
  else if (commandValue !== undefined && commandValue.join(' ').toLowerCase() !== 'none') proxyCommand = commandValue.join(' ');
  const last = chain.at(-1);
  // As `ssh -J a,b` does: the last hop is reached through the ones before it, and the first
  // hop through whatever its own config says.
  const jump = last === undefined ? undefined : resolve({ address: last.host, sshUser: last.user, sshPort: last.port }, sources, local, depth + 1, chain.slice(0, -1));

  const knownFiles = (key: string, defaults: string[]): string[] => {
    const v = c.all(key);
    if (v === undefined) return defaults;
    if (v.length === 1 && v[0]!.toLowerCase() === 'none') return [];
    return v.map(path);
  };

  return {
    alias,
    hostName,
    port,
    user,
    identityFiles,
    identitySource,
    identitiesOnly: parseYesNo(c.first('identitiesonly')) ?? false,
    agentSocket,
    jump,
    proxyCommand,
    userKnownHostsFiles: knownFiles('userknownhostsfile', [...(local.userKnownHostsFiles ?? [`${local.homeDir}/.ssh/known_hosts`, `${local.homeDir}/.ssh/known_hosts2`])]),
    globalKnownHostsFiles: knownFiles('globalknownhostsfile', [...(local.globalKnownHostsFiles ?? ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'])]),
    hostKeyName: hostKeyAlias ?? hostName,
    hostKeyPort: hostKeyAlias !== undefined ? 22 : port,
    hashKnownHosts: parseYesNo(c.first('hashknownhosts')) ?? false,
    connectTimeoutMs: seconds(c.first('connecttimeout')),
    keepaliveIntervalMs: seconds(c.first('serveraliveinterval')),
    keepaliveCountMax: integer(c.first('serveralivecountmax')),
  };
}

interface Collected {
  first(key: string): string | undefined;
  all(key: string): string[] | undefined;
  /** The order in which a keyword was first obtained (Infinity when never). */
  index(key: string): number;
  identityFiles: string[];
}

function collect(host: string, sources: SshConfigSources, local: SshLocalContext): Collected {
  const values = new Map<string, { order: number; values: string[] }>();
  const identityFiles: string[] = [];
  const visit = (lines: readonly Line[], active: boolean, neverMatch: boolean, isUser: boolean, depth: number): void => {
    for (const line of lines) {
      if (line.type !== SSHConfig.DIRECTIVE) continue;
      const key = line.param.toLowerCase();
      const vals = valueList(line.value);
      if ('config' in line) {
        if (key === 'host') visit(line.config, !neverMatch && hostMatches(host, vals), neverMatch, isUser, depth);
        // Match is out of scope; its block ends the previous Host block, and contributes nothing.
        continue;
      }
      if (key === 'include') {
        if (depth >= MAX_DEPTH) throw new SshConfigError(`ssh_config Include nests more than ${MAX_DEPTH} levels deep`);
        for (const pattern of vals) {
          for (const file of sources.includes?.get(includePattern(pattern, isUser, local.homeDir)) ?? []) {
            visit(parseConfig(file), active, neverMatch || !active, isUser, depth + 1);
          }
        }
        continue;
      }
      if (!active) continue;
      if (key === 'identityfile') identityFiles.push(...vals);
      else if (!values.has(key) && vals.length > 0) values.set(key, { order: values.size, values: vals });
    }
  };
  if (sources.user) visit(parseConfig(sources.user), true, false, true, 0);
  if (sources.system) visit(parseConfig(sources.system), true, false, false, 0);
  return {
    first: (key) => values.get(key)?.values[0],
    all: (key) => values.get(key)?.values,
    index: (key) => values.get(key)?.order ?? Number.POSITIVE_INFINITY,
    identityFiles,
  };
}

function parseConfig(file: SshConfigFile): SSHConfig {
  try {
    return SSHConfig.parse(file.text);
  } catch (err) {
    throw new SshConfigError(`cannot parse ${file.path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function valueList(value: string | { val: string }[]): string[] {
  return typeof value === 'string' ? [value] : value.map((v) => v.val);
}

/**
 * The absolute form of an Include argument, the key the loader files its reads under:
 * `~` expanded, relative paths anchored in ~/.ssh (user config) or /etc/ssh (system config).
 */
export function includePattern(pattern: string, isUser: boolean, homeDir: string): string {
  if (pattern === '~' || pattern.startsWith('~/')) return homeDir + pattern.slice(1);
  if (pattern.startsWith('/')) return pattern;
  return isUser ? `${homeDir}/.ssh/${pattern}` : `/etc/ssh/${pattern}`;
}

/** Parses a ProxyJump value (`a,b@c:22,ssh://d`). */
export function parseProxyJump(value: string): JumpSpec[] {
  return value.split(',').map((raw) => {
    let s = raw.trim();
    if (s.startsWith('ssh://')) s = s.slice('ssh://'.length).replace(/\/$/, '');
    const at = s.lastIndexOf('@');
    const user = at >= 0 ? s.slice(0, at) : undefined;
    const rest = at >= 0 ? s.slice(at + 1) : s;
    let host = rest;
    let portText: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
    if (bracketed) {
      host = bracketed[1]!;
      portText = bracketed[2];
    } else if (rest.indexOf(':') === rest.lastIndexOf(':') && rest.includes(':')) {
      host = rest.slice(0, rest.indexOf(':'));
      portText = rest.slice(rest.indexOf(':') + 1);
    }
    if (host === '' || user === '') throw new SshConfigError(`ProxyJump "${value}": cannot read the hop "${raw.trim()}"`);
    const port = portText === undefined ? undefined : Number(portText);
    if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) {
      throw new SshConfigError(`ProxyJump "${value}": the port of "${raw.trim()}" must be 1–65535`);
    }
    return { host, ...(user !== undefined ? { user } : {}), ...(port !== undefined ? { port } : {}) };
  });
}

/** Expands `%x` tokens that are in `tokens` and `%%`; unknown tokens are left as written. */
export function expandTokens(value: string, tokens: Readonly<Record<string, string>>): string {
  return value.replace(/%(.)/g, (whole, ch: string) => (ch === '%' ? '%' : (tokens[ch] ?? whole)));
}

/** A path from ssh_config: `%` tokens, `${VAR}` from the environment, then a leading `~`. */
export function expandPath(value: string, tokens: Readonly<Record<string, string>>, homeDir: string, env: Readonly<Record<string, string | undefined>>): string {
  let p = expandTokens(value, tokens).replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => env[name] ?? whole);
  if (p === '~') p = homeDir;
  else if (p.startsWith('~/')) p = homeDir + p.slice(1);
  return p;
}

function parsePort(value: string | undefined, alias: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new SshConfigError(`ssh_config gives ${alias} the Port "${value}", which is not a number`);
  return Number(value);
}

function parseYesNo(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (v === 'yes' || v === 'true') return true;
  if (v === 'no' || v === 'false') return false;
  return undefined;
}

function seconds(value: string | undefined): number | undefined {
  const n = integer(value);
  return n === undefined ? undefined : n * 1000;
}

function integer(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
