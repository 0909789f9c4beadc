/**
 * The Electron shell's secret store over a mocked safeStorage: encrypted values through the
 * asynchronous calls only (the synchronous ones are deprecated and throw here), and a
 * refusal, with nothing written, when it cannot encrypt or would only obfuscate.
 */
import { readFileSync } from 'node:fs';

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../support/temp-dir.js';

const storage = {
  available: true,
  backend: 'gnome_libsecret',
  /** Resolves app.whenReady(); replaced per test to hold the app before ready. */
  ready: Promise.resolve(),
};

// A reversible stand-in for the OS keychain: the tests check the value never lands in clear.
const xor = (bytes: Iterable<number>) => Buffer.from([...bytes].map((b) => b ^ 0x5a));
const deprecated = (name: string) => () => {
  throw new Error(`${name} is deprecated: the store must not call it`);
};

vi.mock('electron', () => ({
  app: { whenReady: () => storage.ready },
  safeStorage: {
    isAsyncEncryptionAvailable: async () => storage.available,
    getSelectedStorageBackend: () => storage.backend,
    encryptStringAsync: async (s: string) => xor(Buffer.from(s, 'utf8')),
    decryptStringAsync: async (b: Buffer) => ({ result: xor(b).toString('utf8'), shouldReEncrypt: false }),
    isEncryptionAvailable: deprecated('isEncryptionAvailable'),
    encryptString: deprecated('encryptString'),
    decryptString: deprecated('decryptString'),
  },
}));

const { safeSecretsPath, safeStorageSecretStore } = await import('../../../electron/shell/safe-secret-store.js');

/** Lets the store's keychain check (started when it is made) answer. */
const settle = () => new Promise((resolve) => setImmediate(resolve));
const dir = () => tempDir('egress-safe-');

describe('safeStorageSecretStore', () => {
  beforeEach(() => {
    storage.available = true;
    storage.backend = 'gnome_libsecret';
    storage.ready = Promise.resolve();
  });

  it('stores values encrypted in secrets.safe.json and reads them back', async () => {
    const d = dir();
    const store = safeStorageSecretStore(d, 'linux');
    await settle();
    expect(store.availability()).toEqual({ available: true });
    expect(store.description).toContain('Electron safeStorage');
    await store.set('ssh-passphrase:/k', 'hunter2-passphrase');
    const text = readFileSync(safeSecretsPath(d), 'utf8');
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toMatchObject({ version: 1, encoding: 'electron-safe-storage' });
    expect(await safeStorageSecretStore(d, 'linux').get('ssh-passphrase:/k')).toBe('hunter2-passphrase');
  });

  it('refuses to store when encryption is unavailable, or only basic_text on Linux, with a clear message', async () => {
    const d = dir();
    storage.available = false;
    const store = safeStorageSecretStore(d, 'linux');
    await settle();
    expect(store.availability()).toMatchObject({
      available: false,
      reason: expect.stringContaining('keychain is not available'),
    });
    await expect(store.set('k', 'v')).rejects.toMatchObject({
      name: 'SecretStoreUnavailableError',
      message: expect.stringContaining('not remembered'),
    });
    storage.available = true;
    storage.backend = 'basic_text';
    const basic = safeStorageSecretStore(d, 'linux');
    await settle();
    expect(basic.availability()).toMatchObject({ available: false, reason: expect.stringContaining('only obfuscate') });
    await expect(basic.set('k', 'v')).rejects.toThrow(/only obfuscate/);
    // basic_text is a Linux notion: elsewhere the keychain check decides.
    const mac = safeStorageSecretStore(d, 'darwin');
    await settle();
    expect(mac.availability()).toEqual({ available: true });
    expect(() => readFileSync(safeSecretsPath(d))).toThrow();
  });

  it('waits for the app to be ready before encrypting, and then stores nothing if the keychain says no', async () => {
    const d = dir();
    let ready = () => {};
    storage.ready = new Promise<void>((resolve) => (ready = resolve));
    storage.available = false;
    const store = safeStorageSecretStore(d, 'linux');
    await settle();
    // Not known yet: the prompt may offer "remember", and the write itself decides.
    expect(store.availability()).toEqual({ available: true });
    const set = store.set('k', 'v');
    let done = false;
    void set.then(
      () => (done = true),
      () => (done = true),
    );
    await settle();
    expect(done).toBe(false);
    ready();
    await expect(set).rejects.toMatchObject({
      name: 'SecretStoreUnavailableError',
      message: expect.stringContaining('keychain is not available'),
    });
    expect(store.availability()).toMatchObject({ available: false });
    expect(() => readFileSync(safeSecretsPath(d))).toThrow();
  });

  it('a failed keychain check counts as no keychain', async () => {
    const { safeStorage } = await import('electron');
    const spy = vi.spyOn(safeStorage, 'isAsyncEncryptionAvailable').mockRejectedValueOnce(new Error('portal gone'));
    const store = safeStorageSecretStore(dir(), 'linux');
    await settle();
    expect(store.availability()).toMatchObject({
      available: false,
      reason: expect.stringContaining('keychain is not available'),
    });
    spy.mockRestore();
  });

  it('a value the keychain cannot decrypt is reported as such, naming the key only', async () => {
    const { safeStorage } = await import('electron');
    const d = dir();
    const store = safeStorageSecretStore(d, 'linux');
    await store.set('ssh-passphrase:/k', 'hunter2-passphrase');
    const spy = vi
      .spyOn(safeStorage, 'decryptStringAsync')
      .mockRejectedValueOnce(new Error('Error while decrypting the ciphertext'));
    const err = await safeStorageSecretStore(d, 'linux')
      .get('ssh-passphrase:/k')
      .catch((e: unknown) => e as Error);
    expect(err).toMatchObject({
      name: 'SecretStoreCorruptError',
      message: expect.stringContaining('for ssh-passphrase:/k'),
    });
    expect((err as Error).message).not.toContain('hunter2');
    spy.mockRestore();
  });
});
