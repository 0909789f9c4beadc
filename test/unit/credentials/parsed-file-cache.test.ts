/**
 * The stores' parsed-file cache: one parse per change of the file, whoever changed it, and
 * the stores built on it reading 1,000 proxies' credentials without re-reading the file
 * for each (what a health round asks).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialsStore } from '../../../electron/services/credentials/credentials-store.js';
import { ParsedFileCache, noteWritten } from '../../../electron/services/credentials/parsed-file-cache.js';
import { FileSecretStore } from '../../../electron/services/credentials/secret-store.js';
import { tempDir } from '../../support/temp-dir.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('egress-parsed-cache-');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function counting(file: string, recheckMs = 0) {
  const parsed: string[] = [];
  const cache = new ParsedFileCache(
    file,
    (text) => {
      parsed.push(text);
      const value = JSON.parse(text) as { n: number };
      if (typeof value.n !== 'number') throw new Error('no n');
      return value;
    },
    () => ({ n: -1 }),
    recheckMs,
  );
  return { cache, parsed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ParsedFileCache', () => {
  it('parses once per change: concurrent and later reads share it; a replaced file (another process) is read again', async () => {
    const file = join(dir, 'f.json');
    writeFileSync(file, '{"n":1}');
    const { cache, parsed } = counting(file);
    const first = await Promise.all(Array.from({ length: 20 }, () => cache.read()));
    expect(first.every((v) => v === first[0] && v.n === 1)).toBe(true);
    expect(await cache.read()).toBe(first[0]);
    expect(parsed).toHaveLength(1);
    // As the stores and another front end write: a new file renamed over it, the same size.
    writeFileSync(join(dir, 'tmp'), '{"n":2}');
    await rename(join(dir, 'tmp'), file);
    expect(await cache.read()).toEqual({ n: 2 });
    // Written in place, the same size: its times say it changed.
    await sleep(5);
    writeFileSync(file, '{"n":3}');
    expect(await cache.read()).toEqual({ n: 3 });
    expect(parsed).toHaveLength(3);
  });

  it("a check holds for recheckMs: another process's write is seen after it, a write noted by this process at once", async () => {
    const file = join(dir, 'f.json');
    writeFileSync(file, '{"n":1}');
    const { cache, parsed } = counting(file, 200);
    expect(await cache.read()).toEqual({ n: 1 });
    writeFileSync(file, '{"n":2}'); // another process
    expect(await cache.read()).toEqual({ n: 1 });
    await sleep(250);
    expect(await cache.read()).toEqual({ n: 2 });
    writeFileSync(file, '{"n":3}');
    noteWritten(file); // as PrivateJsonFile does after its writes
    expect(await cache.read()).toEqual({ n: 3 });
    expect(parsed).toHaveLength(3);
  });

  it('a missing file reads as its default; a bad file throws every time, not once', async () => {
    const file = join(dir, 'f.json');
    const { cache, parsed } = counting(file);
    expect(await cache.read()).toEqual({ n: -1 });
    writeFileSync(file, '{"m":1}');
    await expect(cache.read()).rejects.toThrow('no n');
    await expect(cache.read()).rejects.toThrow('no n');
    expect(parsed).toHaveLength(2);
    rmSync(file);
    expect(await cache.read()).toEqual({ n: -1 });
  });
});

describe('the stores on it', () => {
  it('1,000 credentials are read with one parse of the file; a set is seen by the next get, and what was read before is unchanged', async () => {
    const file = join(dir, 'credentials.json');
    const proxies = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`p-${i}`, { username: 'egress', password: `secret-${i}` }]),
    );
    writeFileSync(file, JSON.stringify({ version: 1, proxies }), { mode: 0o600 });
    const store = new FileCredentialsStore(file);
    const started = process.cpuUsage();
    const all = await Promise.all(Object.keys(proxies).map((n) => store.get(n)));
    const cpu = process.cpuUsage(started);
    expect(all.map((c) => c?.password)).toEqual(Object.values(proxies).map((c) => c.password));
    // Re-reading the file per get took about 2 s here; one parse takes a few ms. 500 ms leaves room for a slow machine.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(500);
    const before = await store.get('p-1');
    await store.set('p-1', { username: 'egress', password: 'changed' });
    expect(await store.get('p-1')).toEqual({ username: 'egress', password: 'changed' });
    expect(before).toEqual({ username: 'egress', password: 'secret-1' });
    await store.delete('p-2');
    expect(await store.get('p-2')).toBeUndefined();
    expect((await store.names()).length).toBe(999);
  });

  it('the secrets file: a value set by another instance in this process is read by this one at once', async () => {
    const file = join(dir, 'secrets.json');
    const a = new FileSecretStore(file);
    const b = new FileSecretStore(file);
    await a.set('k', 'one');
    expect(await b.get('k')).toBe('one');
    await a.set('k', 'two');
    expect(await b.get('k')).toBe('two');
    await b.delete('k');
    expect(await a.get('k')).toBeUndefined();
  });
});
