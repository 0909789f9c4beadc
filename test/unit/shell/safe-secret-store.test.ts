/** The Electron shell's secret store over a mocked safeStorage: encrypted values, and a refusal when it cannot encrypt. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const storage = {
  available: true,
  backend: 'gnome_libsecret',
};

vi.mock('electron', () => ({
  safeStorage: {
    isEncryptionAvailable: () => storage.available,
    getSelectedStorageBackend: () => storage.backend,
    // A reversible stand-in for the OS keychain: the test checks the value never lands in clear.
    encryptString: (s: string) => Buffer.from([...Buffer.from(s, 'utf8')].map((b) => b ^ 0x5a)),
    decryptString: (b: Buffer) => Buffer.from([...b].map((x) => x ^ 0x5a)).toString('utf8'),
  },
}));

const { safeSecretsPath, safeStorageSecretStore } = await import('../../../electron/shell/safe-secret-store.js');

describe('safeStorageSecretStore', () => {
  beforeEach(() => {
    storage.available = true;
    storage.backend = 'gnome_libsecret';
  });

  it('stores values encrypted in secrets.safe.json and reads them back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'egress-safe-'));
    const store = safeStorageSecretStore(dir, 'linux');
    expect(store.availability()).toEqual({ available: true });
    expect(store.description).toContain('Electron safeStorage');
    await store.set('ssh-passphrase:/k', 'hunter2-passphrase');
    const text = readFileSync(safeSecretsPath(dir), 'utf8');
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toMatchObject({ version: 1, encoding: 'electron-safe-storage' });
    expect(await safeStorageSecretStore(dir, 'linux').get('ssh-passphrase:/k')).toBe('hunter2-passphrase');
  });

  it('refuses to store when encryption is unavailable, or only basic_text on Linux, with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'egress-safe-'));
    storage.available = false;
    const store = safeStorageSecretStore(dir, 'linux');
    expect(store.availability()).toMatchObject({ available: false, reason: expect.stringContaining('keychain is not available') });
    await expect(store.set('k', 'v')).rejects.toMatchObject({ name: 'SecretStoreUnavailableError', message: expect.stringContaining('not remembered') });
    storage.available = true;
    storage.backend = 'basic_text';
    await expect(store.set('k', 'v')).rejects.toThrow(/only obfuscate/);
    // basic_text is a Linux notion: elsewhere isEncryptionAvailable decides.
    expect(safeStorageSecretStore(dir, 'darwin').availability()).toEqual({ available: true });
    expect(() => readFileSync(safeSecretsPath(dir))).toThrow();
  });
});
