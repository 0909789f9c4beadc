import { getCiphers } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cipherPreference, hostKeyPreference } from '../../../electron/transport/ssh-algorithms.js';

describe('algorithm preferences', () => {
  it('puts AES-GCM first, then ChaCha20-Poly1305, then AES-CTR', () => {
    expect(cipherPreference()).toEqual([
      'aes128-gcm@openssh.com',
      'aes256-gcm@openssh.com',
      'chacha20-poly1305@openssh.com',
      'aes128-ctr',
      'aes192-ctr',
      'aes256-ctr',
    ]);
    expect(getCiphers()).toContain('aes-128-gcm');
  });

  it('leaves out what this Node cannot do, rather than letting ssh2 throw', () => {
    expect(cipherPreference(['chacha20', 'aes-128-ctr'])).toEqual(['chacha20-poly1305@openssh.com', 'aes128-ctr']);
  });

  it('asks first for the host key types known_hosts already holds', () => {
    expect(hostKeyPreference([])[0]).toBe('ssh-ed25519');
    expect(hostKeyPreference([])).not.toContain('ssh-rsa');
    expect(hostKeyPreference(['ecdsa-sha2-nistp256']).slice(0, 2)).toEqual(['ecdsa-sha2-nistp256', 'ssh-ed25519']);
    expect(hostKeyPreference(['ssh-rsa']).slice(0, 4)).toEqual([
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa',
      'ssh-ed25519',
    ]);
  });
});
