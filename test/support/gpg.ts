/**
 * Throwaway OpenPGP signing keys for the signature tests, made with the real `gpg` in a
 * home directory of their own (never the user's): a key is generated when the test runs,
 * exported as a binary keyring (what gpgv reads), and signs files detached or clearsigned.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, type TestContext } from 'vitest';
import { skipBecause } from './skip.js';
import { tempDir } from './temp-dir.js';

const run = promisify(execFile);

/** Why gpg cannot be used here, or undefined when it can (gpg and gpgv both answer). */
export async function gpgMissing(): Promise<string | undefined> {
  for (const program of ['gpg', 'gpgv']) {
    try {
      await run(program, ['--version']);
    } catch {
      return `${program} is not installed (test/env/up.sh installs gnupg; gpgv comes with apt)`;
    }
  }
  return undefined;
}

/** One signing key in its own GNUPGHOME. */
export class TestSigningKey {
  private constructor(
    readonly home: string,
    readonly fingerprint: string,
  ) {}

  /** Generates an ed25519 signing key without a passphrase (a few hundred ms). */
  static async generate(uid: string): Promise<TestSigningKey> {
    // Short and under /tmp: gpg-agent's socket path must fit in a sockaddr_un.
    const home = tempDir('eg-gpg-');
    await run('gpg', [
      '--homedir',
      home,
      '--batch',
      '--pinentry-mode',
      'loopback',
      '--passphrase',
      '',
      '--quick-gen-key',
      uid,
      'ed25519',
      'sign',
      'never',
    ]);
    const { stdout } = await run('gpg', ['--homedir', home, '--batch', '--with-colons', '--list-keys']);
    const fpr = /^fpr:+([0-9A-F]{40,64}):/m.exec(stdout)?.[1];
    if (!fpr) throw new Error(`gpg made no key in ${home}:\n${stdout}`);
    return new TestSigningKey(home, fpr);
  }

  /** Writes the public key as a binary keyring file. */
  async exportKeyring(file: string): Promise<void> {
    const { stdout } = await run('gpg', ['--homedir', this.home, '--batch', '--export', this.fingerprint], {
      encoding: 'buffer',
    });
    writeFileSync(file, stdout);
  }

  /** A detached signature of `data` (armoured, as Debian's .sign; binary, as Ubuntu's .gpg). */
  async detachSign(data: Buffer, armor: boolean): Promise<Buffer> {
    return this.sign(data, ['--detach-sign', ...(armor ? ['--armor'] : [])]);
  }

  /** `data` clearsigned, as Fedora's and Rocky's CHECKSUM files are. */
  async clearsign(data: Buffer): Promise<Buffer> {
    return this.sign(data, ['--clearsign']);
  }

  /** Stops the gpg-agent this key's home started, and removes the home. */
  async close(): Promise<void> {
    await run('gpgconf', ['--homedir', this.home, '--kill', 'gpg-agent']).catch(() => undefined);
    rmSync(this.home, { recursive: true, force: true });
  }

  private async sign(data: Buffer, how: string[]): Promise<Buffer> {
    const input = join(this.home, 'in');
    const output = join(this.home, 'out');
    writeFileSync(input, data);
    await run('gpg', [
      '--homedir',
      this.home,
      '--batch',
      '--yes',
      '--pinentry-mode',
      'loopback',
      '--passphrase',
      '',
      '--local-user',
      this.fingerprint,
      ...how,
      '--output',
      output,
      input,
    ]);
    return readFileSync(output);
  }
}

/** A publisher's signing key and a stranger's. */
export interface SigningKeys {
  pub: TestSigningKey;
  other: TestSigningKey;
}

/**
 * Makes two keys, the publisher's (user id `publisher`) and a stranger's, once for the suite
 * it is called in (a beforeAll; none where gpg is missing), and closes them after it. The
 * function it returns hands a test the two keys, or ends the test as skipped with the reason.
 */
export function useSigningKeys(publisher: string): (ctx: TestContext) => SigningKeys {
  let missing: string | undefined;
  let pub: TestSigningKey | undefined;
  let other: TestSigningKey | undefined;
  beforeAll(async () => {
    missing = await gpgMissing();
    if (missing) return;
    [pub, other] = await Promise.all([
      TestSigningKey.generate(publisher),
      TestSigningKey.generate('Someone Else <else@example.invalid>'),
    ]);
  }, 60_000);
  afterAll(async () => {
    await pub?.close();
    await other?.close();
  });
  return (ctx) => {
    if (missing || !pub || !other) skipBecause(ctx, missing ?? 'no test key was made');
    return { pub, other };
  };
}
