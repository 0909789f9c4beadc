/** The secrets file: 0600, atomic, round trip, and a corrupt file that is reported and never overwritten. */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noteWritten } from '../../../electron/services/credentials/parsed-file-cache.js';
import {
  FileSecretStore,
  SecretStoreCorruptError,
  SecretStoreUnavailableError,
  passphraseKey,
  secretsPath,
} from '../../../electron/services/credentials/secret-store.js';
import { Passphrases } from '../../../electron/services/hosts/passphrases.js';
import { tempDir } from '../../support/temp-dir.js';

const dir = () => tempDir('egress-secrets-');

describe('FileSecretStore', () => {
  it('round-trips values in a 0600 file inside a 0700 directory it creates, and says where', async () => {
    const data = join(dir(), 'data');
    const store = new FileSecretStore(secretsPath(data));
    expect(store.description).toBe(`in ${join(data, 'secrets.json')}, readable only by you`);
    expect(await store.get('a')).toBeUndefined();
    await store.set('a', 'one');
    await store.set('b', 'two ✓');
    expect(await store.get('a')).toBe('one');
    expect(await new FileSecretStore(secretsPath(data)).get('b')).toBe('two ✓');
    expect(statSync(secretsPath(data)).mode & 0o777).toBe(0o600);
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(secretsPath(data), 'utf8'))).toEqual({
      version: 1,
      encoding: 'plain',
      secrets: { a: 'one', b: 'two ✓' },
    });
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBe('two ✓');
  });

  it('writes atomically: concurrent sets all land, and no temporary file is left', async () => {
    const d = dir();
    const store = new FileSecretStore(join(d, 'secrets.json'));
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`k${i}`, `v${i}`)));
    for (let i = 0; i < 20; i++) expect(await store.get(`k${i}`)).toBe(`v${i}`);
    expect(readdirSync(d)).toEqual(['secrets.json']);
  });

  it('reports a corrupt file clearly and never overwrites it', async () => {
    const d = dir();
    const file = join(d, 'secrets.json');
    for (const text of [
      '{"version": 1, "secr',
      JSON.stringify({ version: 2, secrets: {} }),
      JSON.stringify({ version: 1, encoding: 'electron-safe-storage', secrets: { a: 'x' } }),
    ]) {
      writeFileSync(file, text, { mode: 0o600 });
      const store = new FileSecretStore(file);
      await expect(store.get('a')).rejects.toThrow(SecretStoreCorruptError);
      await expect(store.get('a')).rejects.toThrow(`${file}`);
      await expect(store.set('a', 'new')).rejects.toThrow(/left as it is; move it away/);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('refuses to store when unavailable, saying why, and stores nothing', async () => {
    const file = join(dir(), 'secrets.json');
    const store = new FileSecretStore(file, { availability: () => ({ available: false, reason: 'no keyring' }) });
    await expect(store.set('a', 'x')).rejects.toThrow(new SecretStoreUnavailableError('not remembered: no keyring'));
    expect(() => statSync(file)).toThrow();
  });

  it('encodes through a codec, and a value that cannot be decoded is an error naming its key, not its value', async () => {
    const file = join(dir(), 'secrets.json');
    const codec = {
      encoding: 'rot',
      encode: (v: string) => `enc:${v}`,
      decode: (v: string) => {
        if (!v.startsWith('enc:')) throw new Error('bad');
        return v.slice(4);
      },
    };
    const store = new FileSecretStore(file, { codec });
    await store.set('a', 'secret-value');
    expect(readFileSync(file, 'utf8')).toContain('enc:secret-value');
    expect(await store.get('a')).toBe('secret-value');
    writeFileSync(file, JSON.stringify({ version: 1, encoding: 'rot', secrets: { a: 'garbage' } }));
    noteWritten(file); // read at once, not after the RECHECK_MS another process's write may take (parsed-file-cache.ts)
    const err = await store.get('a').catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(SecretStoreCorruptError);
    expect((err as Error).message).toContain('for a in');
    expect((err as Error).message).not.toContain('garbage');
  });

  it('takes an asynchronous codec: its rejections are errors like its throws, and changes land in the order asked', async () => {
    const file = join(dir(), 'secrets.json');
    const later = <T>(value: () => T, ms: number) =>
      new Promise<T>((resolve, reject) =>
        setTimeout(() => {
          try {
            resolve(value());
          } catch (err) {
            reject(err as Error);
          }
        }, ms),
      );
    const codec = {
      encoding: 'slow',
      // The first value encodes slowest: a store that wrote as soon as encoding ended would reorder.
      encode: (v: string) =>
        later(
          () => {
            if (v === 'refused') throw new Error('no');
            return `enc:${v}`;
          },
          v === 'first' ? 30 : 1,
        ),
      decode: (v: string) =>
        later(() => {
          if (!v.startsWith('enc:')) throw new Error('bad');
          return v.slice(4);
        }, 1),
    };
    const store = new FileSecretStore(file, { codec });
    await Promise.all([store.set('a', 'first'), store.set('a', 'second'), store.set('b', 'first'), store.delete('b')]);
    expect(await store.get('a')).toBe('second');
    expect(await store.get('b')).toBeUndefined();
    await expect(store.set('c', 'refused')).rejects.toThrow('no');
    expect(await store.keys()).toEqual(['a']);
    writeFileSync(file, JSON.stringify({ version: 1, encoding: 'slow', secrets: { a: 'garbage' } }));
    noteWritten(file);
    await expect(store.get('a')).rejects.toThrow(SecretStoreCorruptError);
  });
});

describe('Passphrases', () => {
  const request = { endpoint: 'root@h:22', attempt: 1, retry: false };

  it('answers from the session first, then the store; a retry forgets and skips', async () => {
    const store = new FileSecretStore(join(dir(), 'secrets.json'));
    await store.set(passphraseKey('/k2'), 'remembered');
    const p = new Passphrases(store);
    expect(await p.ask('/k1', request)).toBeUndefined();
    expect(await p.ask('/k2', request)).toBe('remembered');
    await p.give('/k1', 'given', false);
    expect(await p.ask('/k1', request)).toBe('given');
    expect(await store.get(passphraseKey('/k1'))).toBeUndefined();
    expect(await p.ask('/k1', { ...request, attempt: 2, retry: true })).toBeUndefined();
    expect(await p.ask('/k1', request)).toBeUndefined();
    await p.give('/k3', 'kept', true);
    expect(await store.get(passphraseKey('/k3'))).toBe('kept');
    expect(p.storeInfo()).toEqual({ available: true, description: `stored ${store.description}` });
  });

  it('says when it cannot remember, and still uses the passphrase for the session', async () => {
    const store = new FileSecretStore(join(dir(), 'secrets.json'), {
      availability: () => ({ available: false, reason: 'no keyring' }),
    });
    const p = new Passphrases(store);
    expect(p.storeInfo()).toEqual({ available: false, description: 'no keyring' });
    await expect(p.give('/k', 'x', true)).rejects.toThrow('not remembered: no keyring');
    expect(await p.ask('/k', request)).toBe('x');
  });
});
