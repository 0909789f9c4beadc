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
  z.object({
    state: z.literal('key-unusable'),
    signatureUrl: z.string(),
    keyId: z.string(),
    why: z.enum(['expired', 'revoked', 'signature expired']),
  }),
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
 * The outcome in two parts, for a front end to set out: whether the signature was verified,
 * and the rest of the sentence (who signed, or why not and what to do).
 */
export function signatureParts(check: SignatureCheck): { verified: boolean; detail: string } {
  switch (check.state) {
    case 'verified':
      return {
        verified: true,
        detail: `${check.signatureUrl} is a good signature by key ${check.fingerprint}${check.signer ? ` (${check.signer})` : ''}`,
      };
    case 'no-keyring':
      return {
        verified: false,
        detail: `no keyring for this publisher on this machine (put its key in ${check.keyringDir}${check.package ? `, or install the package ${check.package}` : ''})${check.keyId ? `; the signature is by key ${check.keyId}` : ''}; ${ONLY_TLS}`,
      };
    case 'unsigned':
      return {
        verified: false,
        detail: `no signature published beside the checksum file (looked for ${check.tried.join(', ')}); ${ONLY_TLS}`,
      };
    case 'unknown-key':
      return {
        verified: false,
        detail: `signed by a key not in your keyrings (${check.keyId}); if you trust it, put the publisher's key in ${check.keyringDir}; ${ONLY_TLS}`,
      };
    case 'key-unusable':
      return {
        verified: false,
        detail: `signed by key ${check.keyId}, but ${check.why === 'signature expired' ? 'the signature has expired' : `the key ${check.why === 'expired' ? 'has expired' : 'was revoked'}`}; ${ONLY_TLS}`,
      };
    case 'not-checked':
      return { verified: false, detail: `${check.reason}; ${ONLY_TLS}` };
  }
}

/** One sentence on the outcome, the same in every front end: "signature verified: …" or "signature not verified: …". */
export function describeSignature(check: SignatureCheck): string {
  const { verified, detail } = signatureParts(check);
  return `signature ${verified ? 'verified' : 'not verified'}: ${detail}`;
}
