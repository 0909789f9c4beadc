/**
 * The digests computed in the one pass over an image's bytes. The cache is keyed by
 * SHA-256; when the publisher lists only a SHA-512 (Debian), both are computed from the
 * same chunks as they stream in, so that the SHA-512 is checked and the SHA-256 known
 * without reading the file a second time.
 */
import { createHash, type Hash } from 'node:crypto';
import type { DigestAlgorithm } from './sums-parse.js';

/** The digest the downloaded bytes must have. */
export interface ExpectedDigest {
  algorithm: DigestAlgorithm;
  /** Lowercase hexadecimal. */
  hex: string;
}

/** What the bytes turned out to be. */
export interface PassResult {
  sha256: string;
  /** The expected algorithm's digest of the bytes (the SHA-256 again when that is what was expected). */
  actual: string;
  matches: boolean;
}

export class DigestPass {
  private readonly sha256: Hash = createHash('sha256');
  private readonly other?: Hash;

  constructor(readonly expected: ExpectedDigest) {
    if (expected.algorithm !== 'sha256') this.other = createHash(expected.algorithm);
  }

  update(chunk: Uint8Array): void {
    this.sha256.update(chunk);
    this.other?.update(chunk);
  }

  /** Finishes both hashes; call once. */
  finish(): PassResult {
    const sha256 = this.sha256.digest('hex');
    const actual = this.other ? this.other.digest('hex') : sha256;
    return { sha256, actual, matches: actual === this.expected.hex };
  }
}
