/**
 * A host's effective SSH settings, resolved as OpenSSH 9.2 resolves them (`ssh -G` is the
 * reference: test/unit/transport/ssh-config-openssh.test.ts compares the two over many configs).
 *
 * Pure: it works on file texts already read (ssh-config-load.ts reads them). The evaluation
 * is ours, because OpenSSH's semantics are the contract and no package implements them: the
 * ssh-config package's `compute()` runs `Match exec` commands and `nslookup`, matches Host
 * patterns without regard to case, and ignores the second pass. What happens, in ssh's order:
 *
 * 1. The app's host fields act like ssh's command line: `sshUser` = `-l`, `sshPort` = `-p`,
 *    `identityFile` = `-i` (tried first, ssh_config's IdentityFile list after it).
 * 2. The user config then the system config are read top to bottom. `Host` patterns are
 *    compared with the alias *as typed* (case matters); `Match` blocks are evaluated with every
 *    criterion OpenSSH 9.2 knows (`all`, `canonical`, `final`, `host`, `originalhost`, `user`,
 *    `localuser`, `exec`); `Include` reads its files in place. For each keyword the first value
 *    obtained wins; IdentityFile accumulates.
 * 3. HostName's `%h` is expanded and the name lower-cased (not an address). When the config
 *    asks for it (`Match final`, or `CanonicalizeHostname` on) the files are read a second
 *    time, with `Host` now matching that name, and `Match final`/`canonical` true.
 * 4. Defaults fill what is left, and the paths get `~`, tokens and `${VAR}`.
 *
 * Deliberate differences, each reported as a warning naming file and line:
 * - `Match exec` is never run (a command from a config this app did not write is not ours to
 *   run): its block is treated as not matching.
 * - CanonicalizeHostname never looks names up in DNS: the name stays as written.
 *
 * Steps 1, 3 and 4 are here; step 2, one pass over the files (Host, Match and Include,
 * first value wins), is ssh-config-pass.ts, which this runs once or twice with the same
 * Options, so that a value obtained in the first pass still wins in the second. The other
 * parts stand alone beside them: keywords (ssh-config-keywords.ts), the lexer
 * (ssh-config-parse.ts), tokens (ssh-config-tokens.ts), patterns (ssh-patterns.ts).
 */
import { parseCanonicalize, parseFlag, parseInteger, parsePort, parseTime } from './ssh-config-keywords.js';
import type { ConfigProblem } from './ssh-config-parse.js';
import { type Obtained, Options, ParsedSources, nonEmpty, readAll, throwProblems } from './ssh-config-pass.js';
import { connectionHash, expandPath, percentExpand, tildeExpand, type TokenValues } from './ssh-config-tokens.js';
import type {
  IdentityFileSetting,
  IdentitySource,
  SettingOrigin,
  SshConfigSources,
  SshHostSettings,
  SshLocalContext,
  SshTarget,
} from './ssh-config-types.js';
import { SshConfigError } from './ssh-errors.js';
import { parseProxyJump, type JumpSpec } from './ssh-jump.js';
import { bracketHost } from '../../shared/net.js';

export type {
  IdentityFileSetting,
  IdentitySource,
  SettingOrigin,
  SshConfigFile,
  SshConfigSources,
  SshConfigWarning,
  SshHostSettings,
  SshLocalContext,
  SshTarget,
} from './ssh-config-types.js';
export { parseProxyJump, type JumpSpec } from './ssh-jump.js';

/** OpenSSH 9.2's defaults, minus the security-key and XMSS files ssh2 cannot use. */
const DEFAULT_IDENTITIES = ['id_rsa', 'id_ecdsa', 'id_ed25519', 'id_dsa'];

/** Resolves a host's effective settings, jump hosts included. Throws {@link SshConfigError} where OpenSSH would refuse the config. */
export function resolveSshHost(target: SshTarget, sources: SshConfigSources, local: SshLocalContext): SshHostSettings {
  const parsed = new ParsedSources(sources);
  return resolve(target, parsed, local, 0, undefined);
}

function resolve(
  target: SshTarget,
  parsed: ParsedSources,
  local: SshLocalContext,
  depth: number,
  jumpOverride: JumpSpec[] | undefined,
): SshHostSettings {
  if (depth > 8)
    throw new SshConfigError(
      `ProxyJump for ${target.address} nests more than 8 hops deep: is there a loop in ~/.ssh/config?`,
    );
  const alias = target.address.trim();
  if (alias === '') throw new SshConfigError('the host address is empty');
  const env = local.env ?? {};
  const services = local.services;
  const o = new Options();
  const app: SettingOrigin = { kind: 'app' };
  // The app's fields are ssh's command line: set before any file is read.
  if (target.sshUser !== undefined) o.preset('user', target.sshUser);
  if (target.sshPort !== undefined) {
    if (!Number.isInteger(target.sshPort) || target.sshPort < 1 || target.sshPort > 65535)
      throw new SshConfigError(`the SSH port for ${alias} must be 1–65535 (got ${target.sshPort})`);
    o.preset('port', String(target.sshPort));
  }
  if (target.identityFile !== undefined && target.identityFile.trim() !== '')
    o.addIdentity(target.identityFile.trim(), 1, app);
  // ssh -J for the hops before the last: they win over the hop's own ProxyJump.
  if (jumpOverride !== undefined && jumpOverride.length > 0)
    o.preset('proxyjump', jumpOverride.map(formatHop).join(','));

  const problems: ConfigProblem[] = [];
  readAll(parsed, o, { host: alias, originalHost: alias, final: false, local, services, problems });
  throwProblems(problems);

  const hostNameSetting = o.get('hostname');
  let host = hostNameSetting ? percentExpand(hostNameSetting.args[0]!, { h: alias }, 'HostName') : alias;
  if (!isAddress(host)) host = host.toLowerCase();

  const canonicalize = parseCanonicalize(o.get('canonicalizehostname')?.args[0] ?? 'no') ?? 'no';
  if (canonicalize !== 'no') {
    const setting = o.get('canonicalizehostname')!;
    const domains = (o.get('canonicaldomains')?.args ?? []).filter((d) => d.toLowerCase() !== 'none');
    if (domains.length > 0 || host.endsWith('.')) {
      o.warn({
        file: setting.file,
        line: setting.line,
        message: `CanonicalizeHostname ${setting.args[0]}: Egress Desk does not look host names up in DNS, so "${host}" is used as written (ssh may turn it into a longer name)`,
      });
    }
  }
  if (o.wantFinal || canonicalize !== 'no') {
    o.values.set('hostname', {
      args: [host],
      rest: host,
      file: hostNameSetting?.file ?? '',
      line: hostNameSetting?.line ?? 0,
      order: hostNameSetting?.order ?? o.values.size,
    });
    readAll(parsed, o, { host, originalHost: alias, final: true, local, services, problems });
    throwProblems(problems);
  }

  const portSetting = o.get('port');
  const port = portSetting ? parsePort(portSetting.args[0]!, services)! : 22;
  const userSetting = o.get('user');
  const user = userSetting?.args[0] ?? local.localUser;
  const hostKeyAlias = o.get('hostkeyalias')?.args[0]?.toLowerCase();

  // ProxyJump and ProxyCommand share one slot in OpenSSH: whichever is obtained first wins.
  const jumpSetting = o.get('proxyjump');
  const commandSetting = o.get('proxycommand');
  const jumpFirst =
    jumpSetting !== undefined && (commandSetting === undefined || jumpSetting.order < commandSetting.order);
  let chain: JumpSpec[] = [];
  let proxyCommand: string | undefined;
  let proxyJump: string | undefined;
  if (jumpFirst) {
    proxyJump = jumpSetting.rest.toLowerCase() === 'none' ? undefined : jumpSetting.rest;
    chain = parseProxyJump(jumpSetting.rest, services);
  } else if (commandSetting !== undefined && commandSetting.rest.toLowerCase() !== 'none') {
    proxyCommand = commandSetting.rest;
  }
  const last = chain.at(-1);

  const localHost = local.localHostName ?? 'localhost';
  const tokens: TokenValues = {
    C: connectionHash(localHost, host, String(port), user),
    L: localHost.split('.')[0]!,
    l: localHost,
    d: local.homeDir,
    h: host,
    i: String(local.uid ?? ''),
    j: last?.host ?? '',
    k: hostKeyAlias ?? alias,
    n: alias,
    p: String(port),
    r: user,
    u: local.localUser,
  };
  const path = (value: string, what: string): string => expandPath(value, tokens, local.homeDir, env, what);

  let identities: IdentityFileSetting[] = o.identities
    .filter((i) => i.written.toLowerCase() !== 'none')
    .map((i) => ({ path: path(i.written, 'IdentityFile'), written: i.written, origin: i.origin }));
  if (o.identities.length === 0) {
    identities = DEFAULT_IDENTITIES.map((n) => ({
      path: `${local.homeDir}/.ssh/${n}`,
      written: `~/.ssh/${n}`,
      origin: { kind: 'default' },
    }));
  }
  const identitySource: IdentitySource =
    identities[0]?.origin.kind === 'app' ? 'explicit' : o.identities.length > 0 ? 'ssh_config' : 'default';

  const agentSetting = o.get('identityagent')?.args[0];
  let agentSocket: string | undefined = nonEmpty(env.SSH_AUTH_SOCK);
  if (agentSetting !== undefined) {
    if (agentSetting.toLowerCase() === 'none') agentSocket = undefined;
    else if (agentSetting === 'SSH_AUTH_SOCK') agentSocket = nonEmpty(env.SSH_AUTH_SOCK);
    else if (agentSetting.startsWith('$') && !agentSetting.startsWith('${'))
      agentSocket = nonEmpty(env[agentSetting.slice(1)]);
    else agentSocket = path(agentSetting, 'IdentityAgent');
  }

  // As `ssh -J a,b` does: the last hop is reached through the ones before it, and the first
  // hop through whatever its own config says. Hops get no -i: ssh passes -l, -p and -J only.
  const jump =
    last === undefined
      ? undefined
      : resolve(
          {
            address: last.host,
            ...(last.user !== undefined ? { sshUser: last.user } : {}),
            ...(last.port !== undefined ? { sshPort: last.port } : {}),
          },
          parsed,
          local,
          depth + 1,
          chain.slice(0, -1),
        );

  const userKnown = o.get('userknownhostsfile');
  const globalKnown = o.get('globalknownhostsfile');
  const knownFiles = (
    setting: Obtained | undefined,
    defaults: readonly string[],
    expand: (v: string) => string,
  ): string[] => {
    if (setting === undefined) return [...defaults];
    if (setting.args.length === 1 && setting.args[0]!.toLowerCase() === 'none') return [];
    return setting.args.map(expand);
  };
  const origin = (s: Obtained | undefined): SettingOrigin =>
    s === undefined ? { kind: 'default' } : s.line === 0 ? app : { kind: 'ssh_config', file: s.file, line: s.line };

  const timeout = o.get('connecttimeout');
  const aliveInterval = o.get('serveraliveinterval');
  const aliveCount = o.get('serveralivecountmax');
  const warnings = [...o.warnings];
  if (proxyCommand !== undefined) {
    warnings.push({
      file: commandSetting!.file,
      line: commandSetting!.line,
      message: `ProxyCommand is not run by Egress Desk: connecting to ${alias} fails until it uses ProxyJump instead`,
    });
  }
  return {
    alias,
    hostName: host,
    port,
    user,
    identityFiles: identities.map((i) => i.path),
    identitySource,
    identities,
    identitiesOnly: parseFlag(o.get('identitiesonly')?.args[0] ?? 'no') ?? false,
    agentSocket,
    jump,
    proxyJump,
    proxyCommand,
    userKnownHostsFiles: knownFiles(
      userKnown,
      local.userKnownHostsFiles ?? [`${local.homeDir}/.ssh/known_hosts`, `${local.homeDir}/.ssh/known_hosts2`],
      (v) => path(v, 'UserKnownHostsFile'),
    ),
    // OpenSSH expands no tokens here, only `~`.
    globalKnownHostsFiles: knownFiles(
      globalKnown,
      local.globalKnownHostsFiles ?? ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'],
      (v) => tildeExpand(v, local.homeDir),
    ),
    hostKeyName: hostKeyAlias ?? host,
    hostKeyPort: hostKeyAlias !== undefined ? 22 : port,
    hashKnownHosts: parseFlag(o.get('hashknownhosts')?.args[0] ?? 'no') ?? false,
    // 0 means "no timeout of its own" to ssh: the app's default applies.
    connectTimeoutMs: positiveMs(timeout ? parseTime(timeout.args[0]!) : undefined),
    keepaliveIntervalMs: positiveMs(aliveInterval ? parseTime(aliveInterval.args[0]!) : undefined),
    keepaliveCountMax: aliveCount ? (parseInteger(aliveCount.args[0]!) as number) : undefined,
    origins: {
      hostName: origin(hostNameSetting),
      port: origin(portSetting),
      user: origin(userSetting),
      ...(jumpFirst ? { proxyJump: origin(jumpSetting) } : {}),
    },
    warnings: [
      ...warnings,
      ...(jump?.warnings ?? []).filter(
        (w) => !warnings.some((x) => x.file === w.file && x.line === w.line && x.message === w.message),
      ),
    ],
  };
}
function formatHop(hop: JumpSpec): string {
  const host = bracketHost(hop.host);
  return `${hop.user !== undefined ? `${hop.user}@` : ''}${host}${hop.port !== undefined ? `:${hop.port}` : ''}`;
}

/** An IPv4 or IPv6 literal: OpenSSH leaves those as written rather than lower-casing them. */
function isAddress(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || (host.includes(':') && /^[0-9A-Fa-f:.]+(%.+)?$/.test(host));
}

function positiveMs(seconds: number | undefined): number | undefined {
  return seconds === undefined || seconds === 0 ? undefined : seconds * 1000;
}
