/**
 * Unlocking an encrypted identity file with a passphrase the person typed (the app's
 * passphrase prompt, hosts:unlock), outside of an SSH handshake: so that a wrong
 * passphrase is answered at once, and a right one goes into the pool's key cache
 * ({@link SshConnectionPool.addKey}) and is not decrypted a second time while connecting.
 *
 * ssh2 decrypts synchronously, and an OpenSSH key's bcrypt KDF costs about 0.5 s of CPU
 * (16 rounds). It is not moved to a worker thread: ssh2 cannot re-import the decrypted key
 * from any format a worker could hand back (PKCS#8 ed25519 is refused), so a worker would
 * need our own OpenSSH key writer. It happens once per key per connection pool.
 */
import { readFile } from 'node:fs/promises';
import ssh2 from 'ssh2';
import type { ParsedKey } from 'ssh2';
import { errnoCode } from './errors.js';
import { messageOf } from '../../shared/errors.js';

/** The outcome of {@link decryptKeyFile}; never holds the passphrase. */
export type KeyUnlock =
  { ok: true; key: ParsedKey } | { ok: false; reason: 'wrong-passphrase' | 'unreadable'; message: string };

/** Decrypts the private key in `path` with `passphrase`. */
export async function decryptKeyFile(path: string, passphrase: string): Promise<KeyUnlock> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return {
      ok: false,
      reason: 'unreadable',
      message: `cannot read the key file ${path}: ${errnoCode(err) ?? messageOf(err)}`,
    };
  }
  const parsed = ssh2.utils.parseKey(text, passphrase);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key && !(key instanceof Error) && key.isPrivateKey()) return { ok: true, key };
  const detail = key instanceof Error ? key.message : 'the file holds no private key';
  if (key instanceof Error && /passphrase|decrypt|integrity/i.test(detail)) {
    return { ok: false, reason: 'wrong-passphrase', message: `wrong passphrase for ${path}: try again` };
  }
  return { ok: false, reason: 'unreadable', message: `${path} cannot be used as an SSH key: ${detail}` };
}
