/**
 * What checking a publisher's signature on its checksum file found, in every front end's
 * words. Only `verified` means a signature was checked: gpgv answered VALIDSIG with a key
 * from the publisher's keyrings on this machine or the app's own keyring directory. Every
 * other state says exactly why it was not, so that nobody mistakes "not checked" for
 * "checked". A BAD signature is no state here: it is an error, and the digest is not used.
 */
import { z } from 'zod';

/** The outcome of the signature check of one checksum file. */
export const SignatureCheckSchema = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('verified'),
    /** The detached signature, or the checksum file itself when it is clearsigned. */
    signatureUrl: z.string(),
    /** The signing key's primary fingerprint (uppercase hex), from gpgv's VALIDSIG. */
    fingerprint: z.string(),
    /** The key's user ID, as gpgv's GOODSIG gives it. */
    signer: z.string().optional(),
  }),
  z.object({
    state: z.literal('no-keyring'),
    signatureUrl: z.string(),
    /** Where a person puts the publisher's key. */
    keyringDir: z.string(),
    /** The long key ID the signature names, when gpgv could read it. */
    keyId: z.string().optional(),
    /** A Debian package that installs the publisher's keyring, when one is known. */
    package: z.string().optional(),
  }),
  z.object({
    state: z.literal('unsigned'),
    /** The signature files looked for beside the checksum file. */
    tried: z.array(z.string()),
  }),
  z.object({ state: z.literal('unknown-key'), signatureUrl: z.string(), keyId: z.string(), keyringDir: z.string() }),
  z.object({ state: z.literal('key-unusable'), signatureUrl: z.string(), keyId: z.string(), why: z.enum(['expired', 'revoked', 'signature expired']) }),
  z.object({
    state: z.literal('not-checked'),
    /** Why not: gpgv missing, a signature gpgv could not read. */
    reason: z.string(),
  }),
]);
export type SignatureCheck = z.infer<typeof SignatureCheckSchema>;

/** Said after every outcome but `verified`: what the digest's trust then rests on. */
const ONLY_TLS = 'the checksum file is as trustworthy as the connection it came over';

/**
 * One sentence on the outcome, the same in the CLI and the app: "signature verified: …",
 * or "signature not verified: <why>; <what to do>".
 */
export function describeSignature(check: SignatureCheck): string {
  switch (check.state) {
    case 'verified':
      return `signature verified: ${check.signatureUrl} is a good signature by key ${check.fingerprint}${check.signer ? ` (${check.signer})` : ''}`;
    case 'no-keyring':
      return `signature not verified: no keyring for this publisher on this machine (put its key in ${check.keyringDir}${check.package ? `, or install the package ${check.package}` : ''})${check.keyId ? `; the signature is by key ${check.keyId}` : ''}; ${ONLY_TLS}`;
    case 'unsigned':
      return `signature not verified: no signature published beside the checksum file (looked for ${check.tried.join(', ')}); ${ONLY_TLS}`;
    case 'unknown-key':
      return `signature not verified: signed by a key not in your keyrings (${check.keyId}); if you trust it, put the publisher's key in ${check.keyringDir}; ${ONLY_TLS}`;
    case 'key-unusable':
      return `signature not verified: signed by key ${check.keyId}, but ${check.why === 'signature expired' ? 'the signature has expired' : `the key ${check.why === 'expired' ? 'has expired' : 'was revoked'}`}; ${ONLY_TLS}`;
    case 'not-checked':
      return `signature not verified: ${check.reason}; ${ONLY_TLS}`;
  }
}
