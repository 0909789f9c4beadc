/**
 * The desktop app's secret store: each value encrypted with Electron's safeStorage (the OS
 * keychain on macOS, DPAPI on Windows, libsecret or KWallet on Linux), kept in
 * `<dataDir>/secrets.safe.json` (0600, atomic; a file of its own, so that the CLI's plain
 * file is never read as an encrypted one). It refuses to store anything when safeStorage
 * cannot encrypt, or on Linux when it would fall back to a hard-coded password
 * ("basic_text"): that is obfuscation, not protection, and the person is told so.
 *
 * Only safeStorage's asynchronous calls are used: `isEncryptionAvailable`, `encryptString`
 * and `decryptString` are deprecated in the Electron version used. Values written by the
 * synchronous `encryptString` of earlier versions still decrypt with `decryptStringAsync`.
 */
import { app, safeStorage } from 'electron';
import {
  FileSecretStore,
  SAFE_STORAGE_ENCODING,
  type SecretStore,
  type SecretStoreAvailability,
  SecretStoreUnavailableError,
  safeSecretsPath,
} from '../services/credentials/secret-store.js';

export { safeSecretsPath } from '../services/credentials/secret-store.js';

const NO_KEYCHAIN =
  'the OS keychain is not available to this app (on Linux: start gnome-keyring or KWallet), so it cannot be stored encrypted';
const BASIC_TEXT =
  'no keyring (gnome-keyring, KWallet) is running: Electron would only obfuscate it with a fixed key, so it is not stored';

/**
 * Whether safeStorage can encrypt, asked once. Its asynchronous encryptor starts only once
 * the app is ready (the store is made before), hence the wait; a failed check counts as
 * "cannot".
 */
class KeychainCheck {
  /** The answer, once there is one. */
  known: boolean | undefined;
  private check: Promise<boolean> | undefined;

  answer(): Promise<boolean> {
    this.check ??= app
      .whenReady()
      .then(() => safeStorage.isAsyncEncryptionAvailable())
      .catch(() => false)
      .then((available) => (this.known = available));
    return this.check;
  }
}

/**
 * What the store can do now, for the "remember" prompt, which asks synchronously. Before
 * the keychain check has answered (the first second of the app, before any window) the
 * keychain is assumed there: `encode` waits for the answer and refuses then, so nothing
 * is ever stored without it.
 */
function availability(platform: NodeJS.Platform, keychain: KeychainCheck): SecretStoreAvailability {
  if (keychain.known === false) return { available: false, reason: NO_KEYCHAIN };
  // A Linux notion: elsewhere the keychain check decides. 'unknown' (before ready) is settled by encode's wait.
  if (platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text')
    return { available: false, reason: BASIC_TEXT };
  return { available: true };
}

/** The store the Electron shell passes to createAppServices. */
export function safeStorageSecretStore(dataDir: string, platform: NodeJS.Platform = process.platform): SecretStore {
  const file = safeSecretsPath(dataDir);
  const keychain = new KeychainCheck();
  // Asked now, so that the answer is in before the window can offer "remember".
  void keychain.answer();
  return new FileSecretStore(file, {
    description: `encrypted with your OS keychain (Electron safeStorage) in ${file}`,
    availability: () => availability(platform, keychain),
    codec: {
      encoding: SAFE_STORAGE_ENCODING,
      encode: async (value) => {
        await keychain.answer();
        const state = availability(platform, keychain);
        if (!state.available) throw new SecretStoreUnavailableError(`not remembered: ${state.reason}`);
        return (await safeStorage.encryptStringAsync(value)).toString('base64');
      },
      // `shouldReEncrypt` (a rotated key) is not acted on: the old key still decrypts, and the
      // value is written with the current one the next time the person remembers it.
      decode: async (stored) => {
        await app.whenReady();
        return (await safeStorage.decryptStringAsync(Buffer.from(stored, 'base64'))).result;
      },
    },
  });
}
