import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ImageCache,
  ImageCacheError,
  ImageDigestMismatchError,
  type ImageProgress,
} from '../../../electron/services/images/index.js';
import { bufferFile, sha256, TestServer } from './server.js';
import { tempDir } from '../../support/temp-dir.js';

let server: TestServer;
let dir: string;
const data = Buffer.from('a debian genericcloud stand-in\n'.repeat(20_000));
const sha512 = (b: Buffer): string => createHash('sha512').update(b).digest('hex');
const image = () => ({ url: server.url('/bookworm/debian-12-genericcloud-amd64.qcow2'), sha512: sha512(data) });

beforeEach(async () => {
  server = await new TestServer().start();
  server.files.set('/bookworm/debian-12-genericcloud-amd64.qcow2', bufferFile(data));
  dir = join(tempDir('egress-images-512-'), 'images');
});
afterEach(() => server.close());

describe('ImageCache.ensureBySha512: an image its publisher lists with a SHA-512 only', () => {
  it('downloads once, checks the SHA-512 and stores the file under the SHA-256 computed in the same pass', async () => {
    const cache = new ImageCache({ dir });
    const progress: ImageProgress[] = [];
    const r = await cache.ensureBySha512(image(), { onProgress: (p) => progress.push(p) });
    expect(r).toEqual({
      path: join(dir, `${sha256(data)}.qcow2`),
      size: data.length,
      sha256: sha256(data),
      cached: false,
    });
    expect(readFileSync(r.path).equals(data)).toBe(true);
    expect(readdirSync(dir)).toEqual([`${sha256(data)}.qcow2`]);
    expect(server.requests).toHaveLength(1);
    // Only download progress: the file was not read back to compute either digest.
    expect(new Set(progress.map((p) => p.phase))).toEqual(new Set(['download']));
    // The result is an ordinary cached image: ensure() by its SHA-256 finds it without a request.
    expect(await cache.ensure({ url: image().url, sha256: r.sha256 })).toMatchObject({ cached: true, path: r.path });
    expect(server.requests).toHaveLength(1);
  });

  it('a SHA-512 mismatch deletes the download and says which digest did not match', async () => {
    const wrong = sha512(Buffer.from('another file'));
    const err = (await new ImageCache({ dir })
      .ensureBySha512({ ...image(), sha512: wrong })
      .catch((e: unknown) => e)) as ImageDigestMismatchError;
    expect(err).toBeInstanceOf(ImageDigestMismatchError);
    expect(err.algorithm).toBe('sha512');
    expect(err.message).toContain(
      `has sha512 ${sha512(data)} but ${wrong} was expected (${data.length} bytes); the download was deleted and is not used`,
    );
    expect(readdirSync(dir).filter((n) => !n.endsWith('.lock'))).toEqual([]);
  });

  it('an interrupted download keeps its partial (listed by its SHA-512) and the next call resumes it', async () => {
    const cache = new ImageCache({ dir });
    server.dropAfter = 100_000;
    await expect(cache.ensureBySha512(image())).rejects.toThrow(/the partial download is kept/);
    const partial = join(dir, `sha512-${sha512(data)}.partial`);
    expect(readFileSync(partial)).toHaveLength(100_000);
    expect(await cache.partials()).toMatchObject([
      { sha512: sha512(data), size: 100_000, total: data.length, url: image().url },
    ]);
    expect((await cache.partials())[0]!.sha256).toBeUndefined();
    const r = await cache.ensureBySha512(image());
    expect(r.sha256).toBe(sha256(data));
    expect(server.requests[1]).toMatchObject({ status: 206, headers: { range: 'bytes=100000-' } });
    expect(existsSync(partial)).toBe(false);
  });

  it('prune removes SHA-512 partials when stale, or whenever unkept ones go (the config keeps SHA-256 digests only)', async () => {
    const now = Date.parse('2025-06-01T00:00:00Z');
    const write = (c: string, daysAgo: number) => {
      const path = join(dir, `sha512-${c.repeat(128)}.partial`);
      writeFileSync(path, Buffer.alloc(10));
      writeFileSync(`${path}.json`, JSON.stringify({ url: 'http://127.0.0.1/x' }));
      const t = (now - daysAgo * 86_400_000) / 1000;
      utimesSync(path, t, t);
    };
    await new ImageCache({ dir }).ensureBySha512(image());
    write('a', 8);
    write('b', 1);
    const cache = new ImageCache({ dir, now: () => now });
    expect(await cache.prune({ maxBytes: Infinity })).toMatchObject([
      { sha512: 'a'.repeat(128), kind: 'partial', size: 10 },
    ]);
    expect(await cache.prune({ maxBytes: Infinity, keep: [sha256(data)], partials: 'unkept' })).toMatchObject([
      { sha512: 'b'.repeat(128), kind: 'partial' },
    ]);
    expect(readdirSync(dir)).toEqual([`${sha256(data)}.qcow2`]);
  });

  it('refuses a digest that is not a SHA-512, before any request', async () => {
    await expect(new ImageCache({ dir }).ensureBySha512({ ...image(), sha512: 'a'.repeat(64) })).rejects.toThrow(
      ImageCacheError,
    );
    await expect(new ImageCache({ dir }).ensureBySha512({ ...image(), sha512: 'a'.repeat(64) })).rejects.toThrow(
      'is not a sha512 digest (128 lowercase hexadecimal characters)',
    );
    expect(server.requests).toHaveLength(0);
  });
});
