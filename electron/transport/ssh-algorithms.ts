/**
 * The algorithm lists this transport offers, in preference order.
 */
import { getCiphers } from 'node:crypto';
import type { CipherAlgorithm, ServerHostKeyAlgorithm } from 'ssh2';

// AES-GCM first: measured here, ssh2 moves ~617 MiB/s with aes128-gcm against ~321 MiB/s with
// its default order (reference/test-hypervisor.md), and AES-NI is the common case. Each entry
// names the OpenSSL cipher it needs, so that a Node built without one does not make ssh2
// throw "Unsupported algorithm".
const CIPHERS: ReadonlyArray<[CipherAlgorithm, string]> = [
  ['aes128-gcm@openssh.com', 'aes-128-gcm'],
  ['aes256-gcm@openssh.com', 'aes-256-gcm'],
  ['chacha20-poly1305@openssh.com', 'chacha20'],
  ['aes128-ctr', 'aes-128-ctr'],
  ['aes192-ctr', 'aes-192-ctr'],
  ['aes256-ctr', 'aes-256-ctr'],
];

/** The cipher list: AES-GCM, then ChaCha20-Poly1305, then AES-CTR. */
export function cipherPreference(available: readonly string[] = getCiphers()): CipherAlgorithm[] {
  const have = new Set(available);
  return CIPHERS.filter(([, openssl]) => have.has(openssl)).map(([name]) => name);
}

// OpenSSH's order, without ssh-rsa (SHA-1 signatures), which OpenSSH 8.8 stopped accepting.
const HOST_KEY_ALGORITHMS: readonly ServerHostKeyAlgorithm[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
];

/**
 * Host-key algorithms with the ones already known for the host first, as OpenSSH orders
 * them: otherwise a server holding several keys may present one of a type not yet recorded,
 * and a known host would look changed.
 */
export function hostKeyPreference(knownKeyTypes: readonly string[]): ServerHostKeyAlgorithm[] {
  const preferred: ServerHostKeyAlgorithm[] = [];
  for (const type of knownKeyTypes) {
    // An "ssh-rsa" key signs with rsa-sha2-512/256 (or, for old servers, ssh-rsa itself).
    const algorithms: ServerHostKeyAlgorithm[] =
      type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : HOST_KEY_ALGORITHMS.filter((a) => a === type);
    for (const a of algorithms) if (!preferred.includes(a)) preferred.push(a);
  }
  return [...preferred, ...HOST_KEY_ALGORITHMS.filter((a) => !preferred.includes(a))];
}
