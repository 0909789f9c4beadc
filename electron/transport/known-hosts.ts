/**
 * OpenSSH's known_hosts files (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"): parsing, the host-key
 * check with OpenSSH's outcomes, SHA256 fingerprints as ssh-keygen prints them, and appending
 * a newly trusted key.
 */
import { createHmac, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errnoCode } from './errors.js';
import { matchPatternList } from './ssh-patterns.js';

/** One parsed key line. */
export interface KnownHostLine {
  file: string;
  /** 1-based, as ssh-keygen and OpenSSH's messages count. */
  line: number;
  marker: 'revoked' | 'cert-authority' | undefined;
  /** The host field: a comma-separated pattern list, or one `|1|salt|hash` entry. */
  hosts: string;
  keyType: string;
  /** The key blob (the base64 field, decoded). */
  key: Buffer;
}

/** The outcome of a host-key check. */
export type HostKeyStatus = 'trusted' | 'unknown' | 'mismatch';

/** A check's outcome with the lines behind it, for messages. */
export interface HostKeyLookup {
  status: HostKeyStatus;
  /** The presented key is marked `@revoked` for this host (status is then `mismatch`). */
  revoked: boolean;
  /** The line that trusts the key (trusted), or the line it conflicts with (mismatch). */
  line: KnownHostLine | undefined;
}

/** The name OpenSSH looks a host up by: `host` on port 22, else `[host]:port`; lower case. */
export function knownHostsName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

/** Parses known_hosts text. Comments, blank and malformed lines are skipped, as OpenSSH skips them. */
export function parseKnownHosts(text: string, file = 'known_hosts'): KnownHostLine[] {
  const out: KnownHostLine[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const fields = raw.trim().split(/[ \t]+/);
    if (fields[0] === undefined || fields[0] === '' || fields[0].startsWith('#')) continue;
    let marker: KnownHostLine['marker'];
    if (fields[0].startsWith('@')) {
      const m = fields.shift()!;
      if (m === '@revoked') marker = 'revoked';
      else if (m === '@cert-authority') marker = 'cert-authority';
      else continue; // an unknown marker makes the line invalid in OpenSSH
    }
    const [hosts, keyType, base64] = fields;
    if (hosts === undefined || keyType === undefined || base64 === undefined) continue;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) continue;
    const key = Buffer.from(base64, 'base64');
    // The blob names its own type; a line whose two types disagree is corrupt.
    if (keyTypeOf(key) !== keyType) continue;
    out.push({ file, line: i + 1, marker, hosts, keyType, key });
  }
  return out;
}

/** Whether a line's host field selects `name` (a {@link knownHostsName}). */
export function lineMatchesHost(line: KnownHostLine, name: string): boolean {
  if (line.hosts.startsWith('|')) return hashedMatches(line.hosts, name);
  return matchPatternList(name, line.hosts.split(',')) === 'match';
}

function hashedMatches(field: string, name: string): boolean {
  const parts = field.split('|'); // ['', '1', salt, hash]
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2]!, 'base64');
  const want = Buffer.from(parts[3]!, 'base64');
  const got = createHmac('sha1', salt).update(name).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

/**
 * Checks a presented host key as OpenSSH does (hostfile.c, check_key_in_hostkeys):
 * a matching line holding this key → trusted; matching lines but none holding it → mismatch,
 * whatever their key types (OpenSSH 9 reports "REMOTE HOST IDENTIFICATION HAS CHANGED" when
 * only a key of another type is known); no matching line → unknown. A key marked `@revoked`
 * for the host is a mismatch even if another line trusts it. `@cert-authority` lines are
 * ignored: host certificates are not supported.
 */
export function lookupHostKey(
  lines: readonly KnownHostLine[],
  host: string,
  port: number,
  keyType: string,
  keyBlob: Buffer,
): HostKeyLookup {
  const name = knownHostsName(host, port);
  let conflicting: KnownHostLine | undefined;
  let trusted: KnownHostLine | undefined;
  for (const line of lines) {
    if (line.marker === 'cert-authority' || !lineMatchesHost(line, name)) continue;
    const same = line.keyType === keyType && line.key.equals(keyBlob);
    if (line.marker === 'revoked') {
      if (same) return { status: 'mismatch', revoked: true, line };
      continue;
    }
    if (same) trusted ??= line;
    // Prefer a same-type line as the one to name in a mismatch message.
    else if (conflicting === undefined || (conflicting.keyType !== keyType && line.keyType === keyType))
      conflicting = line;
  }
  if (trusted) return { status: 'trusted', revoked: false, line: trusted };
  if (conflicting) return { status: 'mismatch', revoked: false, line: conflicting };
  return { status: 'unknown', revoked: false, line: undefined };
}

/** The parsed contents of one or more known_hosts files. */
export class KnownHosts {
  constructor(readonly lines: readonly KnownHostLine[]) {}

  /** Parses one file's text. */
  static parse(text: string, file = 'known_hosts'): KnownHosts {
    return new KnownHosts(parseKnownHosts(text, file));
  }

  /** Reads files in order; a missing file counts as empty. */
  static async load(files: readonly string[]): Promise<KnownHosts> {
    const lines: KnownHostLine[] = [];
    for (const file of files) {
      try {
        lines.push(...parseKnownHosts(await readFile(file, 'utf8'), file));
      } catch (err) {
        const code = errnoCode(err);
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') throw err;
      }
    }
    return new KnownHosts(lines);
  }

  /** `trusted`, `unknown` or `mismatch` for a presented key. */
  check(host: string, port: number, keyType: string, keyBlob: Buffer): HostKeyStatus {
    return lookupHostKey(this.lines, host, port, keyType, keyBlob).status;
  }

  /** The check with the line behind its outcome. */
  lookup(host: string, port: number, keyType: string, keyBlob: Buffer): HostKeyLookup {
    return lookupHostKey(this.lines, host, port, keyType, keyBlob);
  }

  /** The key types known for a host, in file order: the ones to ask the server for first. */
  keyTypesFor(host: string, port: number): string[] {
    const name = knownHostsName(host, port);
    const types = this.lines.filter((l) => l.marker === undefined && lineMatchesHost(l, name)).map((l) => l.keyType);
    return [...new Set(types)];
  }
}

/** The key type named inside an SSH public key blob (its first string), or '' if unreadable. */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return '';
  const len = keyBlob.readUInt32BE(0);
  if (len > keyBlob.length - 4 || len > 64) return '';
  return keyBlob.toString('latin1', 4, 4 + len);
}

/** The fingerprint exactly as `ssh-keygen -lf` prints it: `SHA256:` and unpadded base64. */
export function fingerprintSha256(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** A hashed host field as `ssh-keygen -H` writes it: `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`. */
export function hashHostName(name: string, salt: Buffer = randomBytes(20)): string {
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

/** One known_hosts line for a key, in `[host]:port` form off port 22; hashed when asked. */
export function formatKnownHostLine(
  host: string,
  port: number,
  keyType: string,
  keyBlob: Buffer,
  options: { hash?: boolean; salt?: Buffer } = {},
): string {
  const name = knownHostsName(host, port);
  const field = options.hash ? hashHostName(name, options.salt) : name;
  return `${field} ${keyType} ${keyBlob.toString('base64')}`;
}

/**
 * Records a trusted key: one line appended in a single write (O_APPEND, so a concurrent
 * OpenSSH append cannot interleave with it), the file created 0600 and its directory 0700
 * when missing, as OpenSSH does. Returns the line written.
 */
export async function appendKnownHost(
  file: string,
  host: string,
  port: number,
  keyType: string,
  keyBlob: Buffer,
  options: { hash?: boolean } = {},
): Promise<string> {
  if (keyTypeOf(keyBlob) !== keyType)
    throw new Error(`the key blob is a ${keyTypeOf(keyBlob) || 'unreadable'} key, not ${keyType}`);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const line = formatKnownHostLine(host, port, keyType, keyBlob, options);
  const handle = await open(file, 'a+', 0o600);
  try {
    const { size } = await handle.stat();
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n'; // keep a file without a final newline parseable
    }
    await handle.write(`${prefix}${line}\n`);
  } finally {
    await handle.close();
  }
  return line;
}
