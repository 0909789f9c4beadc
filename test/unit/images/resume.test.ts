import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ImageCache,
  ImageDigestMismatchError,
  ImageDownloadNetworkError,
  ImageDownloadStalledError,
} from '../../../electron/services/images/index.js';
import { bufferFile, sha256, TestServer } from './server.js';
import { tempDir } from '../../support/temp-dir.js';

let server: TestServer;
let dir: string;
// Not a repeating pattern: a resume at a wrong offset must change the digest.
const data = Buffer.from(Array.from({ length: 400_000 }, (_, i) => (i * 7919 + (i >> 8)) & 0xff));
const digest = sha256(data);
const N = 150_000;
const partial = () => join(dir, `${digest}.partial`);
const image = () => ({ url: server.url('/disk.qcow2'), sha256: digest });

beforeEach(async () => {
  server = await new TestServer().start();
  server.files.set('/disk.qcow2', bufferFile(data, '"v1"'));
  dir = join(tempDir('egress-resume-'), 'images');
});
afterEach(() => server.close());

/** Runs one download that the server cuts after N bytes; leaves the partial behind. */
async function interrupted(cache: ImageCache): Promise<void> {
  server.dropAfter = N;
  const err = await cache.ensure(image()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ImageDownloadNetworkError);
  expect((err as Error).message).toMatch(/the partial download is kept and the next attempt resumes/);
  expect(statSync(partial()).size).toBe(N);
  expect(JSON.parse(readFileSync(`${partial()}.json`, 'utf8'))).toMatchObject({
    url: image().url,
    etag: '"v1"',
    total: data.length,
  });
}

describe('resuming an interrupted download', () => {
  it('keeps the partial, then resumes with Range and If-Range; the final file verifies', async () => {
    const cache = new ImageCache({ dir });
    await interrupted(cache);
    const r = await cache.ensure(image());
    expect(readFileSync(r.path).equals(data)).toBe(true);
    const second = server.requests[1]!;
    expect(second.headers.range).toBe(`bytes=${N}-`);
    expect(second.headers['if-range']).toBe('"v1"');
    expect(second.status).toBe(206);
    expect(readdirSync(dir)).toEqual([`${digest}.qcow2`]);
  });

  it("resumes from another process's leftovers too (a new cache object, same directory)", async () => {
    await interrupted(new ImageCache({ dir }));
    const r = await new ImageCache({ dir }).ensure(image());
    expect(readFileSync(r.path).equals(data)).toBe(true);
    expect(server.requests[1]!.status).toBe(206);
  });

  it('a server that ignores Range (200) makes it start over, and the result is still correct', async () => {
    const cache = new ImageCache({ dir });
    await interrupted(cache);
    server.ignoreRange = true;
    const r = await cache.ensure(image());
    expect(server.requests[1]).toMatchObject({ status: 200 });
    expect(server.requests[1]!.headers.range).toBe(`bytes=${N}-`);
    expect(readFileSync(r.path).equals(data)).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('a changed ETag makes If-Range fail: the server sends the whole file (200) and the download starts over', async () => {
    const cache = new ImageCache({ dir });
    await interrupted(cache);
    server.files.set('/disk.qcow2', bufferFile(data, '"v2"'));
    const r = await cache.ensure(image());
    expect(server.requests[1]).toMatchObject({ status: 200 });
    expect(server.requests[1]!.headers['if-range']).toBe('"v1"');
    expect(readFileSync(r.path).equals(data)).toBe(true);
  });

  it('falls back to Last-Modified for If-Range when the ETag is weak', async () => {
    const cache = new ImageCache({ dir });
    server.files.set('/disk.qcow2', bufferFile(data, 'W/"weak"'));
    server.dropAfter = N;
    await expect(cache.ensure(image())).rejects.toThrow(ImageDownloadNetworkError);
    await cache.ensure(image());
    expect(server.requests[1]!.headers['if-range']).toBe('Tue, 01 Oct 2024 10:00:00 GMT');
    expect(server.requests[1]!.status).toBe(206);
  });

  it('a corrupted partial is detected after the resume: digest mismatch, and nothing is kept', async () => {
    const cache = new ImageCache({ dir });
    await interrupted(cache);
    const bytes = readFileSync(partial());
    bytes[1234] = bytes[1234]! ^ 0xff;
    writeFileSync(partial(), bytes);
    const err = await cache.ensure(image()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageDigestMismatchError);
    expect(server.requests[1]!.status).toBe(206);
    expect(readdirSync(dir)).toEqual([]);
    // The next attempt starts clean and succeeds.
    expect(readFileSync((await cache.ensure(image())).path).equals(data)).toBe(true);
    expect(server.requests[2]!.headers.range).toBeUndefined();
  });

  it('a complete partial answered with 416 is verified and used without downloading again', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(partial(), data);
    writeFileSync(`${partial()}.json`, JSON.stringify({ url: image().url, etag: '"v1"' }));
    const r = await new ImageCache({ dir }).ensure(image());
    expect(server.requests.map((q) => q.status)).toEqual([416]);
    expect(readFileSync(r.path).equals(data)).toBe(true);
  });

  it('a wrong partial answered with 416 is dropped and the image downloaded afresh', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(partial(), Buffer.alloc(data.length, 1));
    writeFileSync(`${partial()}.json`, JSON.stringify({ url: image().url, etag: '"v1"' }));
    const r = await new ImageCache({ dir }).ensure(image());
    expect(server.requests.map((q) => q.status)).toEqual([416, 200]);
    expect(server.requests[1]!.headers.range).toBeUndefined();
    expect(readFileSync(r.path).equals(data)).toBe(true);
  });

  it("a partial longer than the image's size is corrupt: no resume, a fresh download", async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(partial(), Buffer.alloc(data.length + 10));
    writeFileSync(`${partial()}.json`, JSON.stringify({ url: image().url, etag: '"v1"', total: data.length }));
    const r = await new ImageCache({ dir }).ensure(image());
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers.range).toBeUndefined();
    expect(readFileSync(r.path).equals(data)).toBe(true);
  });

  it('a partial from another URL is not resumed', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(partial(), data.subarray(0, N));
    writeFileSync(`${partial()}.json`, JSON.stringify({ url: 'http://127.0.0.1:1/elsewhere.qcow2', etag: '"v1"' }));
    await new ImageCache({ dir }).ensure(image());
    expect(server.requests[0]!.headers.range).toBeUndefined();
  });
});

describe('stalls', () => {
  it('no byte for the stall timeout → ImageDownloadStalledError; the partial is kept and resumed next time', async () => {
    const cache = new ImageCache({ dir, stallTimeoutMs: 300 });
    server.stallAfter = N;
    const started = Date.now();
    const err = await cache.ensure(image()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageDownloadStalledError);
    expect((err as Error).message).toMatch(
      /^no data from http:\S+ for 0\.3 s \(after 150000 bytes\); the partial download is kept/,
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(statSync(partial()).size).toBe(N);
    const r = await cache.ensure(image());
    expect(server.requests[1]).toMatchObject({ status: 206 });
    expect(readFileSync(r.path).equals(data)).toBe(true);
  });

  it('a server that never answers stalls too (before the headers)', async () => {
    server.headerDelayMs = 5000;
    const err = await new ImageCache({ dir, stallTimeoutMs: 200 }).ensure(image()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageDownloadStalledError);
  });

  it('a slow but steady download is not a stall (the timeout is per silence, not per download)', async () => {
    const { createServer } = await import('node:http');
    const slow = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': data.length });
      let at = 0;
      const tick = setInterval(() => {
        res.write(data.subarray(at, at + 40_000));
        at += 40_000;
        if (at >= data.length) {
          clearInterval(tick);
          res.end();
        }
      }, 60);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(slow.address() as { port: number }).port}/slow`;
      const r = await new ImageCache({ dir, stallTimeoutMs: 250 }).ensure({ url, sha256: digest });
      expect(r.size).toBe(data.length);
    } finally {
      slow.close();
    }
  });
});
