import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ImageCache,
  ImageDigestMismatchError,
  ImageHttpError,
  ImageNotFoundError,
  ImageTooLargeError,
  ImageUrlError,
  type ImageProgress,
} from '../../../electron/services/images/index.js';
import { bufferFile, generatedFile, sha256, TestServer } from './server.js';
import { tempDir } from '../../support/temp-dir.js';

let server: TestServer;
let dir: string;
const data = Buffer.from('a small qcow2 stand-in\n'.repeat(10_000));
const digest = sha256(data);

beforeEach(async () => {
  server = await new TestServer().start();
  server.files.set('/img/disk.qcow2', bufferFile(data));
  dir = join(tempDir('egress-images-'), 'images');
});
afterEach(() => server.close());

describe('ImageCache.ensure', () => {
  it('downloads, verifies and stores the image under its digest; nothing else is left', async () => {
    const cache = new ImageCache({ dir });
    const progress: ImageProgress[] = [];
    const r = await cache.ensure(
      { url: server.url('/img/disk.qcow2'), sha256: digest, format: 'qcow2' },
      { onProgress: (p) => progress.push(p) },
    );
    expect(r).toEqual({ path: join(dir, `${digest}.qcow2`), size: data.length, sha256: digest, cached: false });
    expect(readFileSync(r.path).equals(data)).toBe(true);
    expect(readdirSync(dir)).toEqual([`${digest}.qcow2`]);
    expect(progress.at(-1)).toMatchObject({ phase: 'download', bytes: data.length, total: data.length });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers['accept-encoding']).toBe('identity');
    expect(await cache.has(digest)).toBe(true);
  });

  it('a cached image is returned without any request, and its last use is recorded (atime)', async () => {
    let now = Date.parse('2025-01-01T00:00:00Z');
    const cache = new ImageCache({ dir, now: () => now });
    const image = { url: server.url('/img/disk.qcow2'), sha256: digest };
    await cache.ensure(image);
    now = Date.parse('2025-03-01T12:00:00Z');
    const second = await cache.ensure(image);
    expect(second.cached).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(statSync(second.path).atimeMs).toBe(now);
    expect((await cache.list())[0]).toMatchObject({
      sha256: digest,
      format: 'qcow2',
      size: data.length,
      lastUsed: new Date(now),
    });
  });

  it('raw images are stored as .img', async () => {
    const r = await new ImageCache({ dir }).ensure({
      url: server.url('/img/disk.qcow2'),
      sha256: digest,
      format: 'raw',
    });
    expect(r.path).toBe(join(dir, `${digest}.img`));
    expect((await new ImageCache({ dir }).list())[0]!.format).toBe('raw');
  });

  it('a digest mismatch throws ImageDigestMismatchError and leaves no file', async () => {
    const wrong = sha256('something else');
    const err = await new ImageCache({ dir })
      .ensure({ url: server.url('/img/disk.qcow2'), sha256: wrong })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageDigestMismatchError);
    expect(err).toMatchObject({
      expected: wrong,
      actual: digest,
      bytes: data.length,
      url: server.url('/img/disk.qcow2'),
    });
    expect((err as Error).message).toMatch(/deleted and is not used/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('file:// URLs are streamed from the local file', async () => {
    const src = join(tempDir('egress-src-'), 'local image.qcow2');
    writeFileSync(src, data);
    const cache = new ImageCache({ dir });
    const r = await cache.ensure({ url: pathToFileURL(src).href, sha256: digest });
    expect(readFileSync(r.path).equals(data)).toBe(true);
    expect(readdirSync(dir)).toEqual([`${digest}.qcow2`]);
    await expect(cache.ensure({ url: pathToFileURL(`${src}.missing`).href, sha256: sha256('x') })).rejects.toThrow(
      ImageNotFoundError,
    );
    await expect(cache.ensure({ url: pathToFileURL(src).href, sha256: sha256('x') })).rejects.toThrow(
      ImageDigestMismatchError,
    );
    expect(readdirSync(dir)).toEqual([`${digest}.qcow2`]);
  });

  it('HTTP errors are typed, with clear messages', async () => {
    const cache = new ImageCache({ dir });
    await expect(cache.ensure({ url: server.url('/nope.qcow2'), sha256: digest })).rejects.toThrow(
      new ImageNotFoundError(server.url('/nope.qcow2')),
    );
    await expect(cache.ensure({ url: server.url('/nope.qcow2'), sha256: digest })).rejects.toThrow(
      /^the image was not found at http:\/\/127\.0\.0\.1:\d+\/nope\.qcow2 \(HTTP 404\)$/,
    );
    server.statusFor.set('/img/disk.qcow2', 503);
    const err = await cache.ensure({ url: server.url('/img/disk.qcow2'), sha256: digest }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageHttpError);
    expect((err as Error).message).toBe(`HTTP 503 Service Unavailable from ${server.url('/img/disk.qcow2')}`);
  });

  it('follows redirects', async () => {
    const { createServer } = await import('node:http');
    const redirect = createServer((_req, res) => res.writeHead(302, { location: server.url('/img/disk.qcow2') }).end());
    await new Promise<void>((r) => redirect.listen(0, '127.0.0.1', r));
    const port = (redirect.address() as { port: number }).port;
    try {
      const r = await new ImageCache({ dir }).ensure({ url: `http://127.0.0.1:${port}/latest.qcow2`, sha256: digest });
      expect(r.size).toBe(data.length);
    } finally {
      redirect.close();
    }
  });

  it('refuses other schemes, bad digests, and images over the size limit', async () => {
    const cache = new ImageCache({ dir, maxBytes: 1000 });
    await expect(cache.ensure({ url: 'ftp://127.0.0.1/x.qcow2', sha256: digest })).rejects.toThrow(ImageUrlError);
    await expect(cache.ensure({ url: 'ftp://127.0.0.1/x.qcow2', sha256: digest })).rejects.toThrow(
      /scheme ftp is not supported/,
    );
    await expect(cache.ensure({ url: server.url('/img/disk.qcow2'), sha256: digest.toUpperCase() })).rejects.toThrow(
      /not a sha256 digest/,
    );
    const err = await cache.ensure({ url: server.url('/img/disk.qcow2'), sha256: digest }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageTooLargeError);
    expect((err as Error).message).toMatch(/is 230000 bytes or more, over the cache's limit of 1000 bytes/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a body that grows past the limit when no Content-Length announced it', async () => {
    const { createServer } = await import('node:http');
    const chunked = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(600));
      res.end(Buffer.alloc(600));
    });
    await new Promise<void>((r) => chunked.listen(0, '127.0.0.1', r));
    const port = (chunked.address() as { port: number }).port;
    try {
      await expect(
        new ImageCache({ dir, maxBytes: 1000 }).ensure({ url: `http://127.0.0.1:${port}/x`, sha256: digest }),
      ).rejects.toThrow(ImageTooLargeError);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      chunked.close();
    }
  });

  it('progress is throttled to about 10 events a second and carries a rate', async () => {
    const { file, sha256: big } = generatedFile(8 * 1024 * 1024);
    server.files.set('/big.img', file);
    let t = 0;
    const cache = new ImageCache({ dir, now: () => (t += 7) }); // 7 ms pass per reading of the clock
    const events: ImageProgress[] = [];
    await cache.ensure({ url: server.url('/big.img'), sha256: big }, { onProgress: (p) => events.push(p) });
    for (let i = 1; i < events.length - 1; i++) expect(events[i]!.bytes).toBeGreaterThanOrEqual(events[i - 1]!.bytes);
    expect(events.at(-1)!.bytes).toBe(8 * 1024 * 1024);
    expect(events.some((e) => e.rate > 0 && e.etaSeconds !== undefined)).toBe(true);
  });

  it('stores nothing but verified files under the final name; a stray file under the other extension is reused', async () => {
    const cache = new ImageCache({ dir });
    await cache.ensure({ url: server.url('/img/disk.qcow2'), sha256: digest, format: 'raw' });
    const r = await cache.ensure({ url: server.url('/img/disk.qcow2'), sha256: digest, format: 'qcow2' });
    expect(r.cached).toBe(true);
    expect(readdirSync(dir)).toEqual([`${digest}.qcow2`]);
    expect(server.requests).toHaveLength(1);
  });
});
