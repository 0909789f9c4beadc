/** The SSH side of every CLI command that connects: one pool per command, and what --verbose says about polkit. */
import { FileSecretStore, secretsPath } from '../services/credentials/secret-store.js';
import { Passphrases } from '../services/hosts/passphrases.js';
import { SshConnectionPool } from '../transport/index.js';
import type { CliContext } from './context.js';
import { askSecret } from './prompt.js';

/**
 * An SSH pool for one command: a passphrase remembered through the app or serve mode
 * (`<dataDir>/secrets.json`, 0600) first, else asked at the terminal, if there is one.
 */
export function cliSshPool(ctx: CliContext): SshConnectionPool {
  const remembered = new Passphrases(new FileSecretStore(secretsPath(ctx.dataDir)));
  return new SshConnectionPool({
    env: ctx.io.env,
    askPassphrase: async (keyPath, request) => {
      const known = request.retry ? undefined : await remembered.ask(keyPath, request);
      if (known !== undefined) {
        ctx.debug(
          `using the passphrase for ${keyPath} remembered in ${secretsPath(ctx.dataDir)} (mode 0600, readable only by you)`,
        );
        return known;
      }
      return askSecret(`${request.retry ? 'Wrong passphrase. ' : ''}Passphrase for ${keyPath} (${request.endpoint}): `);
    },
  });
}

/** The --verbose line for a daemon that asks polkit about this user (a non-root user on a system socket). */
export function polkitLine(host: string): string {
  return `${host}: libvirtd asks polkit to authorise this user (AUTH_POLKIT)`;
}
