/**
 * The publisher's signature on its checksum file, checked with gpgv (gpgv.ts) against the
 * keyrings this workstation has for that publisher (shared/known-images.ts) and the app's
 * own keyring directory. Beside `SHA256SUMS` Ubuntu publishes `SHA256SUMS.gpg`, beside
 * `SHA512SUMS` Debian publishes `SHA512SUMS.sign` (both detached); Fedora's and Rocky's
 * CHECKSUM files are clearsigned and checked as they are. The outcome is one of the states
 * of shared/signature.ts; a BAD signature is a {@link BadSignatureError}, never a state.
 */
import { access, readdir } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { publisherOf } from '../../../shared/known-images.js';
import type { SignatureCheck } from '../../../shared/signature.js';
import {
  BadSignatureError,
  locate,
  pick,
  type PublishedDigest,
  PublisherDigestError,
  type PublisherDigestOptions,
  readSmall,
} from './checksums.js';
import { GpgvMissingError, runGpgv } from './gpgv.js';

/** Detached signatures looked for beside a checksum file, in this order. */
const DETACHED = ['.gpg', '.sign'] as const;
/** Keyring files taken from the app's directory: what gpgv reads (an armoured key must be dearmoured first). */
const KEYRING_FILE = /\.(gpg|kbx)$/;

export interface SignatureOptions {
  /** The app's own keyring directory (`<data dir>/keyrings`): every `*.gpg` and `*.kbx` in it. */
  keyringDir: string;
  /** The gpgv program (default `gpgv` on PATH). */
  gpgv?: string;
}

/** A publisher's digest with what its signature check found. */
export interface CheckedDigest extends PublishedDigest {
  signature: SignatureCheck;
}

/**
 * Finds the image's digest as {@link findPublishedDigest} does, then checks the checksum
 * file's signature. When a clearsigned file is verified, the digest is read again from the
 * signed text gpgv gives back: lines around the signed part are nobody's word.
 *
 * @throws BadSignatureError when the signature is BAD (the file was changed after signing).
 */
export async function findCheckedDigest(
  url: string,
  options: PublisherDigestOptions & SignatureOptions,
): Promise<CheckedDigest> {
  const { found, bytes, name } = await locate(url, options);
  const clearsigned = isClearsigned(bytes);
  const check = clearsigned
    ? await checkClearsigned(found, bytes, options)
    : await checkDetached(found, bytes, options);
  if (check.state !== 'verified' || !('signedText' in check)) return { ...found, signature: stripText(check) };
  const signed = pick(check.signedText.toString('utf8'), found.sumsUrl, name);
  if (typeof signed === 'string' || signed.digest !== found.digest || signed.algorithm !== found.algorithm) {
    throw new BadSignatureError(
      `${found.sumsUrl} lists ${name} outside the part of the file its signature covers; its digest is not used, nothing was saved`,
    );
  }
  return { ...signed, signature: stripText(check) };
}

type Checked = SignatureCheck | (Extract<SignatureCheck, { state: 'verified' }> & { signedText: Buffer });

function stripText(check: Checked): SignatureCheck {
  if (!('signedText' in check)) return check;
  const { signedText: _text, ...rest } = check;
  return rest;
}

/**
 * A clearsigned file holds the armour header on a line of its own, usually first; text
 * before it is not signed, which is why a verified file's digest is read from gpgv's output.
 */
export function isClearsigned(bytes: Buffer): boolean {
  return /(?:^|\n)(?:\uFEFF)?-----BEGIN PGP SIGNED MESSAGE-----\r?\n/.test(bytes.toString('utf8'));
}

async function checkDetached(
  found: PublishedDigest,
  bytes: Buffer,
  options: PublisherDigestOptions & SignatureOptions,
): Promise<Checked> {
  const tried: string[] = [];
  for (const ext of DETACHED) {
    const signatureUrl = `${found.sumsUrl}${ext}`;
    let sig: { bytes: Buffer } | undefined;
    try {
      sig = await readSmall(signatureUrl, options);
    } catch (err) {
      if (!(err instanceof PublisherDigestError)) throw err;
      // A server error or a refused connection is no proof that nothing is published: say so.
      return { state: 'not-checked', reason: `the signature ${signatureUrl} could not be read (${err.message})` };
    }
    tried.push(decodeURIComponent(signatureUrl.slice(signatureUrl.lastIndexOf('/') + 1)));
    if (sig) return verify(signatureUrl, found.sumsUrl, bytes, sig.bytes, options);
  }
  return { state: 'unsigned', tried };
}

function checkClearsigned(found: PublishedDigest, bytes: Buffer, options: SignatureOptions): Promise<Checked> {
  return verify(found.sumsUrl, found.sumsUrl, bytes, undefined, options);
}

async function verify(
  signatureUrl: string,
  sumsUrl: string,
  data: Buffer,
  signature: Buffer | undefined,
  options: SignatureOptions,
): Promise<Checked> {
  const publisher = publisherOf(sumsUrl);
  const system = await readable(publisher?.keyrings ?? []);
  const own = await keyringsIn(options.keyringDir);
  const keyrings = [...system, ...own];
  const noKeyring = (keyId: string | undefined): Checked => ({
    state: 'no-keyring',
    signatureUrl,
    keyringDir: options.keyringDir,
    ...(keyId ? { keyId } : {}),
    ...(publisher?.package ? { package: publisher.package } : {}),
  });
  let verdict;
  try {
    verdict = await runGpgv({
      data,
      ...(signature ? { signature } : {}),
      keyrings,
      ...(options.gpgv ? { gpgv: options.gpgv } : {}),
    });
  } catch (err) {
    if (err instanceof GpgvMissingError) return { state: 'not-checked', reason: err.message };
    throw err;
  }
  if (verdict.bad) {
    throw new BadSignatureError(
      `BAD signature: the checksum file was changed after it was signed (${sumsUrl}, signature ${signatureUrl}${verdict.keyId ? `, key ${verdict.keyId}` : ''}); its digest is not used, nothing was saved`,
    );
  }
  if (verdict.valid && verdict.fingerprint) {
    const verified = {
      state: 'verified' as const,
      signatureUrl,
      fingerprint: verdict.fingerprint,
      ...(verdict.signer ? { signer: verdict.signer } : {}),
    };
    return signature ? verified : { ...verified, signedText: verdict.signedText ?? Buffer.alloc(0) };
  }
  if (verdict.unusable && verdict.keyId)
    return { state: 'key-unusable', signatureUrl, keyId: verdict.keyId, why: verdict.unusable };
  if (verdict.noPubkey) {
    // "No keyring for this publisher": no keyring at all, or none of the known publisher's own
    // (the app's directory then holds keys for others). A key the person put there that is
    // not the signer's makes it an unknown key instead.
    if (keyrings.length === 0 || (publisher !== undefined && publisher.keyrings.length > 0 && system.length === 0))
      return noKeyring(verdict.keyId);
    return verdict.keyId
      ? { state: 'unknown-key', signatureUrl, keyId: verdict.keyId, keyringDir: options.keyringDir }
      : noKeyring(undefined);
  }
  return { state: 'not-checked', reason: `gpgv found no signature it could check in ${signatureUrl}` };
}

/** The files of `paths` that exist and can be read. */
async function readable(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    if (
      await access(p, constants.R_OK).then(
        () => true,
        () => false,
      )
    )
      out.push(p);
  }
  return out;
}

/** The keyring files in the app's directory (none when it does not exist), sorted for a stable gpgv command. */
export async function keyringsIn(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return [];
    throw err;
  }
  return readable(
    names
      .filter((n) => KEYRING_FILE.test(n))
      .sort()
      .map((n) => join(dir, n)),
  );
}
