/**
 * Proxy credentials in the desktop app's keyring, with the CLI's 0600 file behind it; and
 * the CLI's store, which knows the names (never the values) the app keeps. Real files; the
 * keyring's encryption is a reversible stand-in codec with the app's encoding name, since
 * Electron's safeStorage needs Electron (electron/shell/safe-secret-store.ts is tested with
 * electron mocked in test/unit/shell/safe-secret-store.test.ts).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';

import { describe, expect, it } from 'vitest';
import { FileCredentialsStore, credentialsPath } from '../../../electron/services/credentials/credentials-store.js';
import {
  CredentialsInKeyringError,
  FileCredentialsWithKeyringNames,
  KeyringCredentialsStore,
} from '../../../electron/services/credentials/keyring-credentials-store.js';
import {
  FileSecretStore,
  SAFE_STORAGE_ENCODING,
  type SecretCodec,
  safeSecretsPath,
} from '../../../electron/services/credentials/secret-store.js';
import { tempDir } from '../../support/temp-dir.js';

const ROT: SecretCodec = {
  encoding: SAFE_STORAGE_ENCODING,
  encode: (v) => Buffer.from(v).toString('base64'),
  decode: (v) => Buffer.from(v, 'base64').toString(),
};
const KEYS_ONLY: SecretCodec = {
  encoding: SAFE_STORAGE_ENCODING,
  encode: () => {
    throw new Error('no');
  },
  decode: () => {
    throw new Error('no');
  },
};

function setup(available = true) {
  const dir = tempDir('egress-keyring-');
  const keyring = new FileSecretStore(safeSecretsPath(dir), {
    codec: ROT,
    availability: () => (available ? { available: true } : { available: false, reason: 'no keyring' }),
  });
  const file = new FileCredentialsStore(credentialsPath(dir));
  const app = new KeyringCredentialsStore(keyring, file);
  const cli = new FileCredentialsWithKeyringNames(
    new FileCredentialsStore(credentialsPath(dir)),
    new FileSecretStore(safeSecretsPath(dir), { codec: KEYS_ONLY }),
  );
  return { dir, keyring, file, app, cli };
}

const ann = { username: 'egress', password: 'secret-ann-1' };

describe('proxy credentials in the desktop app', () => {
  it('keeps them in the keyring (encrypted), not in the plain file', async () => {
    const { dir, app, file } = setup();
    await app.set('ann', ann);
    await expect(app.get('ann')).resolves.toEqual(ann);
    await expect(file.get('ann')).resolves.toBeUndefined();
    const raw = readFileSync(safeSecretsPath(dir), 'utf8');
    expect(raw).not.toContain(ann.password);
    expect(statSync(safeSecretsPath(dir)).mode & 0o777).toBe(0o600);
    await expect(app.names()).resolves.toEqual(['ann']);
  });

  it('reads proxies the CLI launched from the file, and moves one into the keyring when it is set again', async () => {
    const { app, file } = setup();
    await file.set('bob', { username: 'egress', password: 'cli-bob' });
    await expect(app.get('bob')).resolves.toEqual({ username: 'egress', password: 'cli-bob' });
    await expect(app.names()).resolves.toEqual(['bob']);
    await app.set('bob', { username: 'egress', password: 'new-bob' });
    await expect(file.get('bob')).resolves.toBeUndefined();
    await expect(app.get('bob')).resolves.toEqual({ username: 'egress', password: 'new-bob' });
  });

  it('falls back to the 0600 file when the keyring cannot keep secrets here', async () => {
    const { dir, app } = setup(false);
    await app.set('cat', ann);
    expect(readFileSync(credentialsPath(dir), 'utf8')).toContain('cat');
    expect(statSync(credentialsPath(dir)).mode & 0o777).toBe(0o600);
    await expect(app.get('cat')).resolves.toEqual(ann);
  });

  it('deletes from both places', async () => {
    const { app, file } = setup();
    await app.set('ann', ann);
    await file.set('ann-old', ann);
    await app.delete('ann');
    await app.delete('ann-old');
    await expect(app.names()).resolves.toEqual([]);
  });

  it("a delete or a new launch in the CLI removes the app's keyring entry, so the app never shows stale credentials", async () => {
    const { dir, app, cli } = setup();
    await app.set('ann', ann);
    await app.set('eve', ann);
    await cli.delete('ann');
    await expect(app.get('ann')).resolves.toBeUndefined();
    await cli.set('eve', { username: 'egress', password: 'relaunched-eve' });
    await expect(app.get('eve')).resolves.toEqual({ username: 'egress', password: 'relaunched-eve' });
    expect(readFileSync(safeSecretsPath(dir), 'utf8')).not.toContain('proxy-credentials:');
    // A proxy the app never had leaves its file alone.
    const fresh = setup();
    await fresh.cli.set('zed', ann);
    expect(existsSync(safeSecretsPath(fresh.dir))).toBe(false);
  });

  it('the CLI says where the credentials of an app-launched proxy are, instead of a URL without them', async () => {
    const { app, cli } = setup();
    await app.set('ann', ann);
    const err = await cli.get('ann').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialsInKeyringError);
    expect((err as Error).message).toBe(
      'ann: its credentials are in the desktop app, encrypted with your OS keychain: copy its URL from the app',
    );
    expect((err as Error).message).not.toContain(ann.password);
    // A proxy the app does not know is simply without credentials.
    await expect(cli.get('nobody')).resolves.toBeUndefined();
    await cli.set('dan', ann);
    await expect(cli.get('dan')).resolves.toEqual(ann);
  });
});
