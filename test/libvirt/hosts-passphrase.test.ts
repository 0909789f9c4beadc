/**
 * The app's passphrase flow against the real sshd and libvirtd: a host whose identity file
 * is encrypted (and no agent) becomes auth-needed asking for that key's passphrase; a wrong
 * one leaves it asking, saying so; the right one connects and, remembered, is used by the
 * next backend without asking. Its own HOME and known_hosts; nothing touches ~/.ssh.
 */
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';
import { type FleetAssembly, assembleFleet } from '../../electron/services/app/fleet-assembly.js';
import { FileSecretStore, passphraseKey, secretsPath } from '../../electron/services/credentials/secret-store.js';
import { Passphrases } from '../../electron/services/hosts/passphrases.js';
import { SshConnectionPool } from '../../electron/transport/index.js';
import { withDefaults } from '../../shared/config.js';
import { testEnv } from '../support/env.js';
import { tempHome, useCleanups } from '../support/transport.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const cleanups = useCleanups();
const HOST = 'egtest-hosts-enc';

function backend(home: string, dataDir: string, passphrases: Passphrases): FleetAssembly {
  const config = withDefaults({
    hosts: [
      {
        name: HOST,
        address: '127.0.0.1',
        sshPort: Number(env.EGRESS_TEST_SSH_PORT),
        sshUser: 'root',
        identityFile: env.EGRESS_TEST_SSH_KEY_ENCRYPTED,
        socketPath: env.EGRESS_TEST_SOCKET,
      },
    ],
    machineTypes: { tiny: { vcpus: 1, memoryMiB: 128 } },
  });
  const sshPool = new SshConnectionPool({
    homeDir: home,
    localUser: 'root',
    env: {},
    systemConfigPath: null,
    globalKnownHostsFiles: [],
    askPassphrase: passphrases.ask,
  });
  const b = assembleFleet({ config, dataDir, sshPool, env: {}, passphrases });
  cleanups.push(() => b.close());
  return b;
}

describe('passphrase of an encrypted identity file (hosts:unlock underneath)', () => {
  it('asks, refuses a wrong one, connects with the right one, and remembers it in the 0600 secrets file', async () => {
    const home = tempHome(env.EGRESS_TEST_KNOWN_HOSTS);
    cleanups.push(() => home.remove());
    const dataDir = tempDir('egress-pass-');
    const store = new FileSecretStore(secretsPath(dataDir));
    const first = backend(home.home, dataDir, new Passphrases(store));

    await expect(first.hosts.info(HOST)).rejects.toMatchObject({ name: 'SshAuthError' });
    expect(first.hosts.status(HOST)).toMatchObject({
      state: 'auth-needed',
      needs: 'passphrase',
      keyFile: env.EGRESS_TEST_SSH_KEY_ENCRYPTED,
      secretStore: { available: true, description: `stored in ${secretsPath(dataDir)}, readable only by you` },
      message: expect.stringContaining('is encrypted: enter its passphrase'),
    });

    await first.hosts.unlock(HOST, 'not-the-passphrase', true);
    expect(first.hosts.status(HOST)).toMatchObject({
      state: 'auth-needed',
      needs: 'passphrase',
      message: `wrong passphrase for ${env.EGRESS_TEST_SSH_KEY_ENCRYPTED}: try again`,
    });
    expect(() => readFileSync(secretsPath(dataDir))).toThrow(); // nothing remembered

    await first.hosts.unlock(HOST, env.EGRESS_TEST_SSH_PASSPHRASE, true);
    expect(first.hosts.status(HOST).state).toBe('connected');
    expect((await first.hosts.info(HOST)).libvirtVersion).toMatch(/^\d+\.\d+/);
    expect(await store.get(passphraseKey(env.EGRESS_TEST_SSH_KEY_ENCRYPTED))).toBe(env.EGRESS_TEST_SSH_PASSPHRASE);
    expect(JSON.stringify(first.hosts.statuses())).not.toContain(env.EGRESS_TEST_SSH_PASSPHRASE);
    await first.close();

    // A new backend (a restart): the remembered passphrase is used without asking.
    const second = backend(home.home, dataDir, new Passphrases(new FileSecretStore(secretsPath(dataDir))));
    expect((await second.hosts.info(HOST)).hypervisor).toBeTruthy();
    expect(second.hosts.status(HOST).state).toBe('connected');
  });

  it('without remember, the passphrase is kept for the session only', async () => {
    const home = tempHome(env.EGRESS_TEST_KNOWN_HOSTS);
    cleanups.push(() => home.remove());
    const dataDir = tempDir('egress-pass-');
    const passphrases = new Passphrases(new FileSecretStore(secretsPath(dataDir)));
    const b = backend(home.home, dataDir, passphrases);
    await b.hosts.unlock(HOST, env.EGRESS_TEST_SSH_PASSPHRASE, false);
    expect(b.hosts.status(HOST).state).toBe('connected');
    expect(() => readFileSync(secretsPath(dataDir))).toThrow();
    await b.close();
    // Same session (same Passphrases), new connection pool: connects without asking.
    const again = backend(home.home, dataDir, passphrases);
    await again.hosts.info(HOST);
    expect(again.hosts.status(HOST).state).toBe('connected');
  });
});
