/**
 * Proxy credentials in the desktop app: each proxy's username and password kept in a
 * {@link SecretStore} (the Electron shell's: encrypted with the OS keychain through
 * safeStorage), with the CLI's plain 0600 `credentials.json` behind it. Reads look in the
 * keyring first, then in the file (a proxy launched from the CLI stays usable in the app);
 * a write goes to the keyring and takes the proxy out of the file, or, when the keyring
 * cannot keep secrets on this machine, to the file as the CLI would (0600). Deletes clear
 * both.
 *
 * The CLI cannot decrypt the keyring: for a proxy launched in the app it says where the
 * credentials are instead (see {@link KEYRING_NOTE}).
 */
import { type ProxyCredentials, ProxyCredentialsSchema } from '../../../shared/proxy.js';
import type { CredentialsStore } from './credentials-store.js';
import type { SecretStore } from './secret-store.js';

const PREFIX = 'proxy-credentials:';

/** What the CLI says about a proxy whose credentials only the app can read. */
export const KEYRING_NOTE =
  'its credentials are in the desktop app, encrypted with your OS keychain: copy its URL from the app';

export class KeyringCredentialsStore implements CredentialsStore {
  constructor(
    private readonly keyring: SecretStore,
    private readonly file: CredentialsStore,
  ) {}

  async get(proxy: string): Promise<ProxyCredentials | undefined> {
    const stored = await this.keyring.get(PREFIX + proxy);
    if (stored === undefined) return this.file.get(proxy);
    const parsed = ProxyCredentialsSchema.safeParse(safeJson(stored));
    if (!parsed.success)
      throw new Error(
        `the stored credentials of ${proxy} are not readable: delete and relaunch the proxy, or set them again`,
      );
    return parsed.data;
  }

  async set(proxy: string, credentials: ProxyCredentials): Promise<void> {
    const checked = ProxyCredentialsSchema.parse(credentials);
    if (!this.keyring.availability().available) return this.file.set(proxy, checked);
    await this.keyring.set(PREFIX + proxy, JSON.stringify(checked));
    // One place per proxy: the keyring now holds it.
    await this.file.delete(proxy);
  }

  async delete(proxy: string): Promise<void> {
    await Promise.all([this.keyring.delete(PREFIX + proxy), this.file.delete(proxy)]);
  }

  async names(): Promise<string[]> {
    const [keys, inFile] = await Promise.all([this.keyring.keys(), this.file.names()]);
    return [
      ...new Set([...keys.filter((k) => k.startsWith(PREFIX)).map((k) => k.slice(PREFIX.length)), ...inFile]),
    ].sort();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A proxy's credentials exist only in the desktop app's keyring, which this front end cannot decrypt. */
export class CredentialsInKeyringError extends Error {
  override readonly name = 'CredentialsInKeyringError';
}

/**
 * The CLI's and serve mode's store: the plain 0600 file, which also knows the names (never
 * the values) the desktop app keeps in its encrypted file, so that a proxy launched in the
 * app is not mistaken for one without authentication.
 */
export class FileCredentialsWithKeyringNames implements CredentialsStore {
  constructor(
    private readonly file: CredentialsStore,
    /** The desktop app's secrets file: its keys are read, and entries removed (neither needs the OS keychain; reading a value would). */
    private readonly appKeyring: Pick<SecretStore, 'keys' | 'delete'>,
  ) {}

  async get(proxy: string): Promise<ProxyCredentials | undefined> {
    const found = await this.file.get(proxy);
    if (found) return found;
    if (await this.inKeyring(proxy)) throw new CredentialsInKeyringError(`${proxy}: ${KEYRING_NOTE}`);
    return undefined;
  }

  async set(proxy: string, credentials: ProxyCredentials): Promise<void> {
    await this.file.set(proxy, credentials);
    // The app reads its keyring first: an old entry there would shadow these credentials.
    await this.forgetInKeyring(proxy);
  }

  async delete(proxy: string): Promise<void> {
    await this.file.delete(proxy);
    await this.forgetInKeyring(proxy);
  }

  names(): Promise<string[]> {
    return this.file.names();
  }

  /** Removes the app's entry for `proxy`, if it has one (a file the CLI cannot read is left alone). */
  private async forgetInKeyring(proxy: string): Promise<void> {
    if (await this.inKeyring(proxy)) await this.appKeyring.delete(PREFIX + proxy);
  }

  private async inKeyring(proxy: string): Promise<boolean> {
    try {
      return (await this.appKeyring.keys()).includes(PREFIX + proxy);
    } catch {
      return false; // no app file, or one this front end cannot read: nothing to say
    }
  }
}
