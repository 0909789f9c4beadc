/**
 * The passphrases of encrypted SSH identity files, as the app knows them: the ones the
 * person gave in this session (kept in memory only), and the ones they asked to remember
 * (in the injected {@link SecretStore}). The SSH pool asks here instead of prompting:
 * a key with no known passphrase is skipped, its host becomes auth-needed with
 * `needs: 'passphrase'`, and the Hosts view asks the person (hosts:unlock).
 *
 * Passphrases are never logged, and never part of a status, a task or an export.
 */
import type { AskPassphrase } from '../../transport/index.js';
import { type SecretStore, passphraseKey } from '../credentials/secret-store.js';

export class Passphrases {
  /** Given in this session (remembered or not), by key file. */
  private readonly session = new Map<string, string>();

  constructor(readonly store: SecretStore | undefined) {}

  /**
   * For SshPoolOptions.askPassphrase. A retry means the passphrase handed out before was
   * wrong (the key file changed since it was remembered): it is forgotten for this session
   * and the key is skipped, so that the person is asked again.
   */
  readonly ask: AskPassphrase = async (keyPath, request) => {
    if (request.retry) {
      this.session.delete(keyPath);
      return undefined;
    }
    const given = this.session.get(keyPath);
    if (given !== undefined) return given;
    try {
      return await this.store?.get(passphraseKey(keyPath));
    } catch {
      return undefined; // an unreadable store: the person is asked (and the store's error shows when remembering)
    }
  };

  /** Where "remember" would keep a passphrase, or why it cannot, for the prompt. */
  storeInfo(): { available: boolean; description: string } {
    if (!this.store) return { available: false, description: 'this front end cannot remember passphrases' };
    const state = this.store.availability();
    return state.available
      ? { available: true, description: `stored ${this.store.description}` }
      : { available: false, description: state.reason };
  }

  /** Records a passphrase that unlocked `keyFile`; with `remember`, also in the store (which may refuse: the error says why). */
  async give(keyFile: string, passphrase: string, remember: boolean): Promise<void> {
    this.session.set(keyFile, passphrase);
    if (!remember) return;
    if (!this.store) throw new Error('this front end cannot remember passphrases: it was used for this session only');
    await this.store.set(passphraseKey(keyFile), passphrase);
  }
}
