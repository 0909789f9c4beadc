/**
 * One pass of OpenSSH 9.2 over the ssh_config files (its `read_config_file_depth` and
 * `match_cfg_line`), for the resolver in ssh-config.ts: the user config then the system
 * config, top to bottom; `Host` compared with the name as given (case matters), `Match`
 * evaluated in place with every criterion OpenSSH 9.2 knows, `Include` read where it
 * stands; for each keyword the first value obtained wins, and IdentityFile accumulates.
 * The resolver runs it once, or twice when the config asks for the final host name.
 */
import { checkArguments, KNOWN_KEYWORDS } from './ssh-config-keywords.js';
import {
  parseConfigFile,
  strdelim,
  type ConfigLine,
  type ConfigProblem,
  type ParsedConfigFile,
} from './ssh-config-parse.js';
import { percentExpand } from './ssh-config-tokens.js';
import type {
  SettingOrigin,
  SshConfigFile,
  SshConfigSources,
  SshConfigWarning,
  SshLocalContext,
} from './ssh-config-types.js';
import { SshConfigError } from './ssh-errors.js';
import { parseProxyJump, proxyJumpText } from './ssh-jump.js';
import { matchPattern, matchPatternList } from './ssh-patterns.js';
import { messageOf } from '../../shared/errors.js';

/** OpenSSH's READCONF_MAX_DEPTH. */
const MAX_DEPTH = 16;

/** One value obtained for a keyword, with where it was written. */
export interface Obtained {
  args: string[];
  rest: string;
  file: string;
  line: number;
  order: number;
}

/** OpenSSH's `Options` while the files are read: first obtained wins. */
export class Options {
  readonly values = new Map<string, Obtained>();
  /** `source` is OpenSSH's `userprovided`: 1 for -i, 2 (SSHCONF_USERCONF) for the user's files, 0 for the system's. */
  readonly identities: Array<{ written: string; source: number; origin: SettingOrigin }> = [];
  readonly warnings: SshConfigWarning[] = [];
  /** `Match final` was seen: a second pass is wanted. */
  wantFinal = false;

  /** The value obtained for `key` (a keyword, lower-cased), if any. */
  get(key: string): Obtained | undefined {
    return this.values.get(key);
  }

  /** Keeps `line` as the value of `key` unless one was obtained already: the first wins. */
  set(key: string, line: ConfigLine): void {
    if (!this.values.has(key))
      this.values.set(key, {
        args: line.args,
        rest: line.rest,
        file: line.file,
        line: line.line,
        order: this.values.size,
      });
  }

  /** Sets `key` as ssh's command line does, before any file is read, so that no file overrides it. */
  preset(key: string, value: string): void {
    this.values.set(key, { args: [value], rest: value, file: '', line: 0, order: this.values.size });
  }

  /** Adds an IdentityFile (`written` as given, expanded later): they accumulate. */
  addIdentity(written: string, source: number, origin: SettingOrigin): void {
    // OpenSSH's add_identity_file: the same text from the same kind of source is kept once
    // (so -i and the same IdentityFile in ~/.ssh/config are both listed, as ssh lists them).
    if (this.identities.some((i) => i.written === written && i.source === source)) return;
    this.identities.push({ written, source, origin });
  }

  /** Records a warning once, however many passes or hops meet its line. */
  warn(warning: SshConfigWarning): void {
    if (!this.warnings.some((w) => w.file === warning.file && w.line === warning.line && w.message === warning.message))
      this.warnings.push(warning);
  }
}

/** Parsed files, each parsed once however many passes and hops read it. */
export class ParsedSources {
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

/** What one pass reads the files for. */
export interface PassContext {
  /** What `Host` matches: the alias as typed in the first pass, the final host name in the second. */
  host: string;
  originalHost: string;
  final: boolean;
  local: SshLocalContext;
  services: ReadonlyMap<string, number> | undefined;
  problems: ConfigProblem[];
}

/** One pass: the user config, then the system config, into `o`; problems are collected in `ctx.problems`. */
export function readAll(parsed: ParsedSources, o: Options, ctx: PassContext): void {
  const { user, system } = parsed.sources;
  if (user) readFile(parsed, parsed.parse(user), o, ctx, { userConf: true, neverMatch: false }, 0);
  if (system) readFile(parsed, parsed.parse(system), o, ctx, { userConf: false, neverMatch: false }, 0);
}

interface ReadFlags {
  userConf: boolean;
  neverMatch: boolean;
}

/** OpenSSH's `read_config_file_depth`: returns nothing; problems are collected in ctx. */
function readFile(
  parsed: ParsedSources,
  file: ParsedConfigFile,
  o: Options,
  ctx: PassContext,
  flags: ReadFlags,
  depth: number,
): void {
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
          readFile(
            parsed,
            parsed.parse(included),
            o,
            ctx,
            { userConf: flags.userConf, neverMatch: flags.neverMatch || !active },
            depth + 1,
          );
        }
      }
      continue;
    }
    if (!KNOWN_KEYWORDS.has(kw)) {
      const ignore = o.get('ignoreunknown');
      if (ignore && matchPatternList(kw, ignore.args[0]!.split(','), { lowerCase: true }) === 'match') continue;
      if (!ctx.final)
        ctx.problems.push({
          file: line.file,
          line: line.line,
          message: `Bad configuration option: ${kw}`,
          colonAfterFile: true,
        });
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
    if (kw === 'identityfile' || kw === 'identityfile2')
      o.addIdentity(line.args[0]!, flags.userConf ? 2 : 0, { kind: 'ssh_config', file: line.file, line: line.line });
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
    if (ownLine)
      ctx.problems.push(
        { file: line.file, line: line.line, message: detail },
        { file: line.file, line: line.line, message: 'Bad Match condition' },
      );
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
      if (attributes > 1 || (arg !== null && arg !== '' && !arg.startsWith('#')))
        return fail(`'${attrib}' cannot be combined with other Match attributes`, true);
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
    else if (name === 'originalhost')
      r = matchPatternList(ctx.originalHost.toLowerCase(), patterns, { lowerCase: true }) === 'match';
    else if (name === 'user') r = matchPatternList(ruser, patterns, { lowerCase: false }) === 'match';
    else if (name === 'localuser')
      r = matchPatternList(ctx.local.localUser, patterns, { lowerCase: false }) === 'match';
    else if (name === 'exec') {
      // ssh skips the command when an earlier criterion already failed: then nothing differs.
      if (result) {
        execSkipped = true;
        o.warn({
          file: line.file,
          line: line.line,
          message: `Match exec "${arg}" was not run (Egress Desk never runs commands from ssh_config): the block is treated as not matching, where ssh would run the command and apply the block if it succeeded`,
        });
      }
      continue;
    } else return fail(`Unsupported Match attribute ${attrib}`);
    if (r === negate) result = false;
  }
  if (attributes === 0) return fail('One or more attributes required for Match');
  return result && !execSkipped;
}

/** Throws what OpenSSH would refuse the config for, every problem in one {@link SshConfigError}. */
export function throwProblems(problems: ConfigProblem[]): void {
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

/** `value`, unless it is unset or empty (the same to ssh, as for an environment variable). */
export function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}
