/**
 * Reads the ssh_config files that {@link resolveSshHost} evaluates: the user's, the system's,
 * and every file their Include lines name (read up front, so that resolution stays pure).
 */
import { readdir, readFile } from 'node:fs/promises';
import { errnoCode } from './errors.js';
import { parseConfigFile } from './ssh-config-parse.js';
import { includePattern } from './ssh-config-pass.js';
import type { SshConfigFile, SshConfigSources } from './ssh-config-types.js';

/** Where the config files are. `null` skips one (tests pass null for the system file). */
export interface SshConfigPaths {
  /** $HOME: where ~/.ssh/config is, and what `~` and relative paths in Include start from (glob(3) reads $HOME). */
  homeDir: string;
  /** Default ~/.ssh/config. */
  userConfigPath?: string | null | undefined;
  /** Default /etc/ssh/ssh_config. */
  systemConfigPath?: string | null | undefined;
}

const MAX_INCLUDE_FILES = 256;

/** Reads the config files; a missing file is simply absent, as for OpenSSH. */
export async function loadSshConfig(paths: SshConfigPaths): Promise<SshConfigSources> {
  const userPath = paths.userConfigPath === undefined ? `${paths.homeDir}/.ssh/config` : paths.userConfigPath;
  const systemPath = paths.systemConfigPath === undefined ? '/etc/ssh/ssh_config' : paths.systemConfigPath;
  const user = userPath === null ? undefined : await readOptional(userPath);
  const system = systemPath === null ? undefined : await readOptional(systemPath);
  const includes = new Map<string, SshConfigFile[]>();
  const queue: Array<{ file: SshConfigFile; isUser: boolean }> = [];
  if (user) queue.push({ file: user, isUser: true });
  if (system) queue.push({ file: system, isUser: false });
  let read = 0;
  // Breadth-first over Include lines in every block: which blocks apply is decided later, per host.
  while (queue.length > 0) {
    const { file, isUser } = queue.shift()!;
    // Lines OpenSSH refuses are reported by resolveSshHost, with the file's name and line.
    const includeArgs = parseConfigFile(file)
      .lines.filter((l) => l.keyword === 'include')
      .flatMap((l) => l.args);
    for (const pattern of includeArgs) {
      const absolute = includePattern(pattern, isUser, paths.homeDir);
      if (includes.has(absolute)) continue;
      const files: SshConfigFile[] = [];
      for (const path of await globPath(absolute)) {
        if (++read > MAX_INCLUDE_FILES) break;
        const included = await readOptional(path);
        if (included) {
          files.push(included);
          queue.push({ file: included, isUser });
        }
      }
      includes.set(absolute, files);
    }
  }
  return { ...(user ? { user } : {}), ...(system ? { system } : {}), includes };
}

async function readOptional(path: string): Promise<SshConfigFile | undefined> {
  try {
    return { path, text: await readFile(path, 'utf8') };
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    throw err;
  }
}

/** glob(3) over an absolute path: `*`, `?` and `[…]` within segments, results sorted, dotfiles only when asked for. */
async function globPath(pattern: string): Promise<string[]> {
  const segments = pattern.split('/').filter((s) => s !== '');
  let bases = [''];
  for (const segment of segments) {
    const next: string[] = [];
    if (!/[*?[]/.test(segment)) {
      for (const base of bases) next.push(`${base}/${segment}`);
    } else {
      const re = globSegment(segment);
      for (const base of bases) {
        let names: string[];
        try {
          names = await readdir(base === '' ? '/' : base);
        } catch {
          continue;
        }
        for (const name of names.sort()) {
          if (name.startsWith('.') && !segment.startsWith('.')) continue;
          if (re.test(name)) next.push(`${base}/${name}`);
        }
      }
    }
    bases = next;
  }
  return bases;
}

function globSegment(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const end = segment.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        const body = segment.slice(i + 1, end).replace(/\\/g, '\\\\');
        re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else re += ch.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * TCP service names from /etc/services (`ssh` → 22), for `Port ssh`: OpenSSH accepts a
 * service name there (getservbyname). A missing file is an empty map.
 */
export async function readServices(path = '/etc/services'): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return out;
  }
  for (const raw of text.split('\n')) {
    const words = raw.replace(/#.*/, '').trim().split(/\s+/);
    const m = /^(\d+)\/tcp$/.exec(words[1] ?? '');
    if (!m) continue;
    for (const name of [words[0]!, ...words.slice(2)]) if (!out.has(name)) out.set(name, Number(m[1]));
  }
  return out;
}
