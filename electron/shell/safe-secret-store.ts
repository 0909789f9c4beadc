/**
 * The desktop app's secret store: each value encrypted with Electron's safeStorage (the OS
 * keychain on macOS, DPAPI on Windows, libsecret or KWallet on Linux), kept in
 * `<dataDir>/secrets.safe.json` (0600, atomic; a file of its own, so that the CLI's plain
 * file is never read as an encrypted one). It refuses to store anything when safeStorage
 * cannot encrypt, or on Linux when it would fall back to a hard-coded password
 * ("basic_text"): that is obfuscation, not protection, and the person is told so.
 */
import { safeStorage } from 'electron';
import { FileSecretStore, SAFE_STORAGE_ENCODING, type SecretStore, type SecretStoreAvailability, SecretStoreUnavailableError, safeSecretsPath } from '../services/credentials/secret-store.js';

export { safeSecretsPath } from '../services/credentials/secret-store.js';

function availability(platform: NodeJS.Platform): SecretStoreAvailability {
  if (!safeStorage.isEncryptionAvailable()) {
    return { available: false, reason: 'the OS keychain is not available to this app (on Linux: start gnome-keyring or KWallet), so it cannot be stored encrypted' };
  }
  if (platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
    return { available: false, reason: 'no keyring (gnome-keyring, KWallet) is running: Electron would only obfuscate it with a fixed key, so it is not stored' };
  }
  return { available: true };
}

/** The store the Electron shell passes to createAppServices. */
export function safeStorageSecretStore(dataDir: string, platform: NodeJS.Platform = process.platform): SecretStore {
  const file = safeSecretsPath(dataDir);
  return new FileSecretStore(file, {
    description: `encrypted with your OS keychain (Electron safeStorage) in ${file}`,
    availability: () => availability(platform),
    codec: {
      encoding: SAFE_STORAGE_ENCODING,
      encode: (value) => {
        const state = availability(platform);
        if (!state.available) throw new SecretStoreUnavailableError(`not remembered: ${state.reason}`);
        return safeStorage.encryptString(value).toString('base64');
      },
      decode: (stored) => safeStorage.decryptString(Buffer.from(stored, 'base64')),
    },
  });
}
