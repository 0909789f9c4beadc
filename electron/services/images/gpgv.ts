/**
 * Runs Debian's `gpgv` (package gpgv, which apt depends on) on one signature and reads its
 * verdict from `--status-fd`, the machine-readable channel: its stderr is text for people,
 * translated and reworded between versions, and is never read. gpgv is given only the
 * keyrings named here and an empty home directory, so a key in the user's own
 * `~/.gnupg/trustedkeys.kbx` never counts; it never touches the network.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What gpgv's status lines said about the signature(s). */
export interface GpgvVerdict {
  /** VALIDSIG and GOODSIG seen and gpgv exited 0: the signature is good and made by a key of the keyrings. */
  valid: boolean;
  /** The primary key's fingerprint from VALIDSIG (uppercase hex). */
  fingerprint?: string | undefined;
  /** The user ID from GOODSIG. */
  signer?: string;
  /** BADSIG: the signed data does not match the signature. */
  bad: boolean;
  /** The long key ID the signature names (from BADSIG, ERRSIG, NO_PUBKEY, EXPKEYSIG…). */
  keyId?: string | undefined;
  /** ERRSIG with code 9 or NO_PUBKEY: the key is in none of the keyrings. */
  noPubkey: boolean;
  /** EXPKEYSIG / REVKEYSIG / EXPSIG: a signature by a key that may not be used. */
  unusable?: 'expired' | 'revoked' | 'signature expired';
  /** NODATA, or an ERRSIG for another reason: gpgv found no signature it could check. */
  unreadable: boolean;
  /** For a clearsigned file: the signed text, as gpgv wrote it (`--output -`); only what is in it is signed. */
  signedText?: Buffer;
}

/** gpgv is not on this machine. */
export class GpgvMissingError extends Error {
  override readonly name = 'GpgvMissingError';
}

export interface GpgvInput {
  /** The signed file's bytes: the data of a detached signature, or the whole clearsigned file. */
  data: Buffer;
  /** The detached signature's bytes (binary or armoured); absent for a clearsigned file. */
  signature?: Buffer;
  /** Keyring files (binary OpenPGP keyrings or keyboxes), absolute paths. */
  keyrings: readonly string[];
  /** The gpgv program (default `gpgv` on PATH). */
  gpgv?: string;
  /** Longest gpgv may take (default 20 s): it only reads local files. */
  timeoutMs?: number;
}

/** Verifies with gpgv; throws {@link GpgvMissingError} when there is no gpgv. */
export async function runGpgv(input: GpgvInput): Promise<GpgvVerdict> {
  const dir = await mkdtemp(join(tmpdir(), 'egress-gpgv-'));
  try {
    const dataFile = join(dir, 'data');
    await writeFile(dataFile, input.data);
    const files = [dataFile];
    if (input.signature) {
      const sigFile = join(dir, 'data.sig');
      await writeFile(sigFile, input.signature);
      files.unshift(sigFile);
    }
    // An empty home: gpgv's default keyring (trustedkeys.kbx there) is absent, so only ours count.
    const args = ['--homedir', dir, '--status-fd', '3', ...input.keyrings.flatMap((k) => ['--keyring', k])];
    if (!input.signature) args.push('--output', '-');
    args.push('--', ...files);
    const { code, status, stdout } = await spawnGpgv(input.gpgv ?? 'gpgv', args, input.timeoutMs ?? 20_000);
    return { ...parseStatus(status, code), ...(input.signature ? {} : { signedText: stdout }) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function spawnGpgv(
  program: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; status: string; stdout: Buffer }> {
  return new Promise((resolve, reject) => {
    // LC_ALL=C keeps the status lines' user IDs untranslated; the environment is otherwise the user's (PATH for gpgv).
    const child = spawn(program, args, {
      stdio: ['ignore', 'pipe', 'ignore', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    const out: Buffer[] = [];
    const status: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    const fd3 = child.stdio[3];
    if (fd3 && 'on' in fd3) fd3.on('data', (d: Buffer) => status.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        err.code === 'ENOENT'
          ? new GpgvMissingError(`gpgv is not installed (Debian and Ubuntu: apt install gpgv)`)
          : err,
      );
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, status: Buffer.concat(status).toString('utf8'), stdout: Buffer.concat(out) });
    });
  });
}

/** Reads gpgv's `[GNUPG:] KEYWORD args` lines (GnuPG's doc/DETAILS). */
export function parseStatus(text: string, exitCode: number | null): Omit<GpgvVerdict, 'signedText'> {
  const verdict: Omit<GpgvVerdict, 'signedText'> = { valid: false, bad: false, noPubkey: false, unreadable: false };
  let good = false;
  let validsig = false;
  for (const line of text.split('\n')) {
    const m = /^\[GNUPG:\] (\S+)(?: (.*))?$/.exec(line.trimEnd());
    if (!m) continue;
    const [keyword, rest = ''] = [m[1]!, m[2]];
    const fields = rest.split(' ');
    switch (keyword) {
      case 'GOODSIG':
        good = true;
        verdict.keyId = fields[0];
        verdict.signer = unescapeStatus(fields.slice(1).join(' '));
        break;
      case 'VALIDSIG':
        validsig = true;
        // The primary key's fingerprint is the tenth field (absent in old versions: the signing key's then).
        verdict.fingerprint = fields[9] ?? fields[0];
        break;
      case 'BADSIG':
        verdict.bad = true;
        verdict.keyId = fields[0];
        break;
      case 'EXPKEYSIG':
      case 'REVKEYSIG':
      case 'EXPSIG':
        verdict.unusable =
          keyword === 'EXPKEYSIG' ? 'expired' : keyword === 'REVKEYSIG' ? 'revoked' : 'signature expired';
        verdict.keyId = fields[0];
        break;
      case 'ERRSIG':
        verdict.keyId = fields[0];
        // Return code 9: no public key. Anything else (an unknown algorithm, say) is unreadable to us.
        if (fields[5] === '9') verdict.noPubkey = true;
        else verdict.unreadable = true;
        break;
      case 'NO_PUBKEY':
        verdict.noPubkey = true;
        verdict.keyId = fields[0];
        break;
      case 'NODATA':
        verdict.unreadable = true;
        break;
    }
  }
  // All three, and nothing bad: a GOODSIG alone is also given for a signature by an expired key.
  verdict.valid = good && validsig && exitCode === 0 && !verdict.bad && verdict.unusable === undefined;
  return verdict;
}

/** Status lines escape control characters and '%' as %XX. */
function unescapeStatus(s: string): string {
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
