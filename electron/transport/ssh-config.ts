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
 * Over 400 lines on purpose: this is the one ordered pass above (first value wins, Match
 * evaluated in place, the second pass), and its state is threaded through every step. The
 * parts that stand alone already live beside it: keywords (ssh-config-keywords.ts), the
 * lexer (ssh-config-parse.ts), tokens (ssh-config-tokens.ts), patterns (ssh-patterns.ts).
 */
import { checkArguments, KNOWN_KEYWORDS, parseCanonicalize, parseFlag, parseInteger, parsePort, parseTime } from './ssh-config-keywords.js';
import { parseConfigFile, strdelim, type ConfigLine, type ConfigProblem, type ParsedConfigFile } from './ssh-config-parse.js';
import { connectionHash, expandPath, percentExpand, tildeExpand, type TokenValues } from './ssh-config-tokens.js';
import type { IdentityFileSetting, IdentitySource, SettingOrigin, SshConfigFile, SshConfigSources, SshConfigWarning, SshHostSettings, SshLocalContext, SshTarget } from './ssh-config-types.js';
import { SshConfigError } from './ssh-errors.js';
import { parseProxyJump, proxyJumpText, type JumpSpec } from './ssh-jump.js';
import { matchPattern, matchPatternList } from './ssh-patterns.js';
import { messageOf } from '../../shared/errors.js';
import { bracketHost } from '../../shared/net.js';

export type { IdentityFileSetting, IdentitySource, SettingOrigin, SshConfigFile, SshConfigSources, SshConfigWarning, SshHostSettings, SshLocalContext, SshTarget } from './ssh-config-types.js';
export { parseProxyJump, type JumpSpec } from './ssh-jump.js';

/** OpenSSH's READCONF_MAX_DEPTH. */
const MAX_DEPTH = 16;
/** OpenSSH 9.2's defaults, minus the security-key and XMSS files ssh2 cannot use. */
const DEFAULT_IDENTITIES = ['id_rsa', 'id_ecdsa', 'id_ed25519', 'id_dsa'];

/** Resolves a host's effective settings, jump hosts included. Throws {@link SshConfigError} where OpenSSH would refuse the config. */
export function resolveSshHost(target: SshTarget, sources: SshConfigSources, local: SshLocalContext): SshHostSettings {
  const parsed = new ParsedSources(sources);
  return resolve(target, parsed, local, 0, undefined);
}

/** One value obtained for a keyword, with where it was written. */
interface Obtained {
  args: string[];
  rest: string;
  file: string;
  line: number;
  order: number;
}

/** OpenSSH's `Options` while the files are read: first obtained wins. */
class Options {
  readonly values = new Map<string, Obtained>();
  /** `source` is OpenSSH's `userprovided`: 1 for -i, 2 (SSHCONF_USERCONF) for the user's files, 0 for the system's. */
  readonly identities: Array<{ written: string; source: number; origin: SettingOrigin }> = [];
  readonly warnings: SshConfigWarning[] = [];
  /** `Match final` was seen: a second pass is wanted. */
  wantFinal = false;

  get(key: string): Obtained | undefined {
    return this.values.get(key);
  }

  set(key: string, line: ConfigLine): void {
    if (!this.values.has(key)) this.values.set(key, { args: line.args, rest: line.rest, file: line.file, line: line.line, order: this.values.size });
  }

  preset(key: string, value: string): void {
    this.values.set(key, { args: [value], rest: value, file: '', line: 0, order: this.values.size });
  }

  addIdentity(written: string, source: number, origin: SettingOrigin): void {
    // OpenSSH's add_identity_file: the same text from the same kind of source is kept once
    // (so -i and the same IdentityFile in ~/.ssh/config are both listed, as ssh lists them).
    if (this.identities.some((i) => i.written === written && i.source === source)) return;
    this.identities.push({ written, source, origin });
  }

  warn(warning: SshConfigWarning): void {
    if (!this.warnings.some((w) => w.file === warning.file && w.line === warning.line && w.message === warning.message)) this.warnings.push(warning);
  }
}

/** Parsed files, each parsed once however many passes and hops read it. */
class ParsedSources {
  private readonly cache = new Map<SshConfigFile, ParsedConfigFile>();

  constructor(readonly sources: SshConfigSources) {}

  parse(file: SshConfigFile): ParsedConfigFile {
    let parsed = this.cache.get(file);
    if (!parsed) {
      parsed = parseConfigFile(file);
      this.cache.set(file, parsed);
    }
    return parsed;
  }
}

interface PassContext {
  /** What `Host` matches: the alias as typed in the first pass, the final host name in the second. */
  host: string;
  originalHost: string;
  final: boolean;
  local: SshLocalContext;
  services: ReadonlyMap<string, number> | undefined;
  problems: ConfigProblem[];
}

function resolve(target: SshTarget, parsed: ParsedSources, local: SshLocalContext, depth: number, jumpOverride: JumpSpec[] | undefined): SshHostSettings {
  if (depth > 8) throw new SshConfigError(`ProxyJump for ${target.address} nests more than 8 hops deep: is there a loop in ~/.ssh/config?`);
  const alias = target.address.trim();
  if (alias === '') throw new SshConfigError('the host address is empty');
  const env = local.env ?? {};
  const services = local.services;
  const o = new Options();
  const app: SettingOrigin = { kind: 'app' };
  // The app's fields are ssh's command line: set before any file is read.
  if (target.sshUser !== undefined) o.preset('user', target.sshUser);
  if (target.sshPort !== undefined) {
    if (!Number.isInteger(target.sshPort) || target.sshPort < 1 || target.sshPort > 65535) throw new SshConfigError(`the SSH port for ${alias} must be 1–65535 (got ${target.sshPort})`);
    o.preset('port', String(target.sshPort));
  }
  if (target.identityFile !== undefined && target.identityFile.trim() !== '') o.addIdentity(target.identityFile.trim(), 1, app);
  // ssh -J for the hops before the last: they win over the hop's own ProxyJump.
  if (jumpOverride !== undefined && jumpOverride.length > 0) o.preset('proxyjump', jumpOverride.map(formatHop).join(','));

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
      o.warn({ file: setting.file, line: setting.line, message: `CanonicalizeHostname ${setting.args[0]}: Egress Desk does not look host names up in DNS, so "${host}" is used as written (ssh may turn it into a longer name)` });
    }
  }
  if (o.wantFinal || canonicalize !== 'no') {
    o.values.set('hostname', { args: [host], rest: host, file: hostNameSetting?.file ?? '', line: hostNameSetting?.line ?? 0, order: hostNameSetting?.order ?? o.values.size });
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
  const jumpFirst = jumpSetting !== undefined && (commandSetting === undefined || jumpSetting.order < commandSetting.order);
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
    identities = DEFAULT_IDENTITIES.map((n) => ({ path: `${local.homeDir}/.ssh/${n}`, written: `~/.ssh/${n}`, origin: { kind: 'default' } }));
  }
  const identitySource: IdentitySource = identities[0]?.origin.kind === 'app' ? 'explicit' : o.identities.length > 0 ? 'ssh_config' : 'default';

  const agentSetting = o.get('identityagent')?.args[0];
  let agentSocket: string | undefined = nonEmpty(env.SSH_AUTH_SOCK);
  if (agentSetting !== undefined) {
    if (agentSetting.toLowerCase() === 'none') agentSocket = undefined;
    else if (agentSetting === 'SSH_AUTH_SOCK') agentSocket = nonEmpty(env.SSH_AUTH_SOCK);
    else if (agentSetting.startsWith('$') && !agentSetting.startsWith('${')) agentSocket = nonEmpty(env[agentSetting.slice(1)]);
    else agentSocket = path(agentSetting, 'IdentityAgent');
  }

  // As `ssh -J a,b` does: the last hop is reached through the ones before it, and the first
  // hop through whatever its own config says. Hops get no -i: ssh passes -l, -p and -J only.
  const jump = last === undefined ? undefined : resolve({ address: last.host, ...(last.user !== undefined ? { sshUser: last.user } : {}), ...(last.port !== undefined ? { sshPort: last.port } : {}) }, parsed, local, depth + 1, chain.slice(0, -1));

  const userKnown = o.get('userknownhostsfile');
  const globalKnown = o.get('globalknownhostsfile');
  const knownFiles = (setting: Obtained | undefined, defaults: readonly string[], expand: (v: string) => string): string[] => {
    if (setting === undefined) return [...defaults];
    if (setting.args.length === 1 && setting.args[0]!.toLowerCase() === 'none') return [];
    return setting.args.map(expand);
  };
  const origin = (s: Obtained | undefined): SettingOrigin => (s === undefined ? { kind: 'default' } : s.line === 0 ? app : { kind: 'ssh_config', file: s.file, line: s.line });

  const timeout = o.get('connecttimeout');
  const aliveInterval = o.get('serveraliveinterval');
  const aliveCount = o.get('serveralivecountmax');
  const warnings = [...o.warnings];
  if (proxyCommand !== undefined) {
    warnings.push({ file: commandSetting!.file, line: commandSetting!.line, message: `ProxyCommand is not run by Egress Desk: connecting to ${alias} fails until it uses ProxyJump instead` });
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
    userKnownHostsFiles: knownFiles(userKnown, local.userKnownHostsFiles ?? [`${local.homeDir}/.ssh/known_hosts`, `${local.homeDir}/.ssh/known_hosts2`], (v) => path(v, 'UserKnownHostsFile')),
    // OpenSSH expands no tokens here, only `~`.
    globalKnownHostsFiles: knownFiles(globalKnown, local.globalKnownHostsFiles ?? ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'], (v) => tildeExpand(v, local.homeDir)),
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
    warnings: [...warnings, ...(jump?.warnings ?? []).filter((w) => !warnings.some((x) => x.file === w.file && x.line === w.line && x.message === w.message))],
  };
}

function readAll(parsed: ParsedSources, o: Options, ctx: PassContext): void {
  const { user, system } = parsed.sources;
  if (user) readFile(parsed, parsed.parse(user), o, ctx, { userConf: true, neverMatch: false }, 0);
  if (system) readFile(parsed, parsed.parse(system), o, ctx, { userConf: false, neverMatch: false }, 0);
}

interface ReadFlags {
  userConf: boolean;
  neverMatch: boolean;
}

/** OpenSSH's `read_config_file_depth`: returns nothing; problems are collected in ctx. */
function readFile(parsed: ParsedSources, file: ParsedConfigFile, o: Options, ctx: PassContext, flags: ReadFlags, depth: number): void {
  if (depth > MAX_DEPTH) throw new SshConfigError(`${file.path}: Include nests more than ${MAX_DEPTH} levels deep`);
  // Problems are reported once, from the first pass, as ssh reports them before anything else.
  if (!ctx.final) ctx.problems.push(...file.problems);
  let active = !flags.neverMatch;
  for (const line of file.lines) {
    const problem = (message: string): void => {
      if (!ctx.final) ctx.problems.push({ file: line.file, line: line.line, message });
    };
    const kw = line.keyword;
    if (kw === 'host') {
      const bad = checkArguments(kw, line.args, ctx.services);
      if (bad) problem(bad);
      active = !flags.neverMatch && hostLineMatches(ctx.host, line.args);
      continue;
    }
    if (kw === 'match') {
      const result = evaluateMatch(line, o, ctx);
      if (result === 'error') continue;
      active = !flags.neverMatch && result;
      continue;
    }
    if (kw === 'include') {
      const bad = checkArguments(kw, line.args, ctx.services);
      if (bad) {
        problem(bad);
        continue;
      }
      for (const pattern of line.args) {
        if (pattern.startsWith('~') && !flags.userConf) {
          problem(`bad include path ${pattern}.`);
          continue;
        }
        const home = nonEmpty(ctx.local.env?.HOME) ?? ctx.local.homeDir;
        for (const included of parsed.sources.includes?.get(includePattern(pattern, flags.userConf, home)) ?? []) {
          readFile(parsed, parsed.parse(included), o, ctx, { userConf: flags.userConf, neverMatch: flags.neverMatch || !active }, depth + 1);
        }
      }
      continue;
    }
    if (!KNOWN_KEYWORDS.has(kw)) {
      const ignore = o.get('ignoreunknown');
      if (ignore && matchPatternList(kw, ignore.args[0]!.split(','), { lowerCase: true }) === 'match') continue;
      if (!ctx.final) ctx.problems.push({ file: line.file, line: line.line, message: `Bad configuration option: ${kw}`, colonAfterFile: true });
      continue;
    }
    if (kw === 'proxyjump' || kw === 'proxycommand') {
      const text = kw === 'proxyjump' ? proxyJumpText(line.rest) : line.rest.replace(/^[ \t\r\n=]+/, '');
      if (kw === 'proxyjump') {
        try {
          parseProxyJump(text, ctx.services);
        } catch {
          problem(`Invalid ProxyJump "${line.rest.replace(/^[ \t\r\n=]+/, '')}"`);
          continue;
        }
      }
      if (active && !o.values.has('proxyjump') && !o.values.has('proxycommand')) o.set(kw, { ...line, rest: text });
      continue;
    }
    const bad = checkArguments(kw, line.args, ctx.services);
    if (bad) {
      problem(bad);
      continue;
    }
    if (!active) continue;
    if (kw === 'identityfile' || kw === 'identityfile2') o.addIdentity(line.args[0]!, flags.userConf ? 2 : 0, { kind: 'ssh_config', file: line.file, line: line.line });
    else o.set(kw, line);
  }
}

/** A `Host` line: a positive match on the name as given, and no negated one; case matters (OpenSSH's match_pattern). */
function hostLineMatches(host: string, patterns: readonly string[]): boolean {
  let matched = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    if (matchPattern(host, negated ? pattern.slice(1) : pattern, { lowerCase: false })) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/**
 * OpenSSH 9.2's `match_cfg_line`. Returns whether the block applies, or 'error' after
 * recording OpenSSH's message. `exec` is never run: the block is taken as not matching and
 * a warning names the file and line.
 */
function evaluateMatch(line: ConfigLine, o: Options, ctx: PassContext): boolean | 'error' {
  const fail = (detail: string, ownLine = false): 'error' => {
    if (ctx.final) return 'error';
    // ssh prints the 'all' complaint as a line of its own, the others inside the condition's.
    if (ownLine) ctx.problems.push({ file: line.file, line: line.line, message: detail }, { file: line.file, line: line.line, message: 'Bad Match condition' });
    else ctx.problems.push({ file: line.file, line: line.line, message: `Bad Match condition (${detail})` });
    return 'error';
  };
  const ruser = o.get('user')?.args[0] ?? ctx.local.localUser;
  const hostNameSetting = o.get('hostname');
  let host: string;
  if (ctx.final) host = hostNameSetting?.args[0] ?? ctx.host;
  else if (hostNameSetting) {
    try {
      host = percentExpand(hostNameSetting.args[0]!, { h: ctx.host }, 'HostName');
    } catch (err) {
      return fail(messageOf(err));
    }
  } else host = ctx.host;

  const text = line.rest;
  let pos: number | null = 0;
  let result = true;
  let attributes = 0;
  let execSkipped = false;
  const next = (): string | null => {
    if (pos === null) return null;
    const [token, after] = strdelim(text, pos, true);
    pos = after;
    return token;
  };
  for (let attrib = next(); attrib !== null && attrib !== ''; attrib = next()) {
    if (attrib.startsWith('#')) break;
    const negate = attrib.startsWith('!');
    const name = (negate ? attrib.slice(1) : attrib).toLowerCase();
    if (name === 'all') {
      const arg = next();
      if (attributes > 1 || (arg !== null && arg !== '' && !arg.startsWith('#'))) return fail(`'${attrib}' cannot be combined with other Match attributes`, true);
      if (result) result = !negate;
      return result && !execSkipped;
    }
    attributes++;
    if (name === 'canonical' || name === 'final') {
      if (name === 'final') o.wantFinal = true;
      if (ctx.final === negate) result = false;
      continue;
    }
    const arg = next();
    if (arg === null || arg === '' || arg.startsWith('#')) return fail(`Missing Match criteria for ${attrib}`);
    const patterns = arg.split(',');
    let r: boolean;
    if (name === 'host') r = matchPatternList(host.toLowerCase(), patterns, { lowerCase: true }) === 'match';
    else if (name === 'originalhost') r = matchPatternList(ctx.originalHost.toLowerCase(), patterns, { lowerCase: true }) === 'match';
    else if (name === 'user') r = matchPatternList(ruser, patterns, { lowerCase: false }) === 'match';
    else if (name === 'localuser') r = matchPatternList(ctx.local.localUser, patterns, { lowerCase: false }) === 'match';
    else if (name === 'exec') {
      // ssh skips the command when an earlier criterion already failed: then nothing differs.
      if (result) {
        execSkipped = true;
        o.warn({ file: line.file, line: line.line, message: `Match exec "${arg}" was not run (Egress Desk never runs commands from ssh_config): the block is treated as not matching, where ssh would run the command and apply the block if it succeeded` });
      }
      continue;
    } else return fail(`Unsupported Match attribute ${attrib}`);
    if (r === negate) result = false;
  }
  if (attributes === 0) return fail('One or more attributes required for Match');
  return result && !execSkipped;
}

function throwProblems(problems: ConfigProblem[]): void {
  if (problems.length === 0) return;
  const lines = problems.map((p) => `${p.file}${p.colonAfterFile ? ':' : ''} line ${p.line}: ${p.message}`);
  throw new SshConfigError(`OpenSSH refuses this ssh_config, and so does Egress Desk: ${lines.join('; ')}`);
}

/**
 * The absolute form of an Include argument, the key the loader files its reads under:
 * `~` expanded, relative paths anchored in ~/.ssh (user config) or /etc/ssh (system config).
 * glob(3) takes that `~` from $HOME, so `home` is $HOME here.
 */
export function includePattern(pattern: string, isUser: boolean, home: string): string {
  if (pattern === '~' || pattern.startsWith('~/')) return home + pattern.slice(1);
  if (pattern.startsWith('/')) return pattern;
  return isUser ? `${home}/.ssh/${pattern}` : `/etc/ssh/${pattern}`;
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

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}
