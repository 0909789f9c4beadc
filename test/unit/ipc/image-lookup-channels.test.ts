/**
 * images:lookup and images:verifySha512 over the real backend (router, app service, task
 * service, image cache), against an HTTP server on 127.0.0.1 in the test.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gpgMissing, TestSigningKey } from '../../support/gpg.js';
import { skipBecause } from '../../support/skip.js';
import { bufferFile, sha256, TestServer } from '../images/server.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture;
let server: TestServer;
const disk = Buffer.from('a debian image stand-in\n'.repeat(4000));
const sha512 = (b: Buffer): string => createHash('sha512').update(b).digest('hex');

beforeEach(async () => {
  server = await new TestServer().start();
  server.files.set('/debian/disk.qcow2', bufferFile(disk));
  server.files.set('/debian/SHA512SUMS', bufferFile(Buffer.from(`${sha512(disk)}  disk.qcow2\n`)));
  server.files.set('/ubuntu/SHA256SUMS', bufferFile(Buffer.from(`${sha256(disk)} *noble.img\n`)));
});
afterEach(async () => {
  await app?.close();
  await server.close();
});

describe('channels: images:lookup', () => {
  it('answers what the checksum file beside the URL (or the one named) lists', async () => {
    app = appFixture();
    expect(await app.call('images:lookup', { url: server.url('/ubuntu/noble.img') })).toEqual({
      algorithm: 'sha256',
      digest: sha256(disk),
      sumsUrl: server.url('/ubuntu/SHA256SUMS'),
      listedName: 'noble.img',
      signature: { state: 'unsigned', tried: ['SHA256SUMS.gpg', 'SHA256SUMS.sign'] },
    });
    expect(await app.call('images:lookup', { url: server.url('/debian/disk.qcow2') })).toMatchObject({
      algorithm: 'sha512',
      digest: sha512(disk),
    });
    expect(
      await app.call('images:lookup', {
        url: server.url('/x/noble.img'),
        checksumsUrl: server.url('/ubuntu/SHA256SUMS'),
      }),
    ).toMatchObject({ digest: sha256(disk) });
  });

  it('a file without the image is a PublisherDigestError naming what was tried; a bad URL is refused before any request', async () => {
    app = appFixture();
    await expect(app.call('images:lookup', { url: server.url('/none/x.img') })).rejects.toMatchObject({
      name: 'PublisherDigestError',
      message: expect.stringMatching(
        /^no checksum file beside \S+ lists x\.img \(SHA256SUMS: not found; .*SHA512SUMS: not found\)$/,
      ),
    });
    await expect(app.call('images:lookup', { url: 'ftp://example.invalid/x.img' })).rejects.toThrow();
    expect(server.requests.filter((r) => !r.path.startsWith('/none/'))).toEqual([]);
  });
});

describe("channels: images:lookup checks the signature with the keyrings in the app's data directory", () => {
  let missing: string | undefined;
  let key: TestSigningKey | undefined;
  beforeAll(async () => {
    missing = await gpgMissing();
    if (!missing) key = await TestSigningKey.generate('Channel Test <channel@example.invalid>');
  }, 60_000);
  afterAll(() => key?.close());

  it('verified with <data dir>/keyrings; a changed file is a BadSignatureError, with no digest', async (ctx) => {
    if (missing || !key) skipBecause(ctx, missing ?? 'no test key was made');
    app = appFixture();
    const sums = Buffer.from(`${sha256(disk)} *noble.img\n`);
    server.files.set('/ubuntu/SHA256SUMS', bufferFile(sums));
    server.files.set('/ubuntu/SHA256SUMS.gpg', bufferFile(await key.detachSign(sums, false)));
    mkdirSync(join(app.dataDir, 'keyrings'));
    await key.exportKeyring(join(app.dataDir, 'keyrings', 'ubuntu.gpg'));
    expect(await app.call('images:lookup', { url: server.url('/ubuntu/noble.img') })).toMatchObject({
      digest: sha256(disk),
      signature: {
        state: 'verified',
        signatureUrl: server.url('/ubuntu/SHA256SUMS.gpg'),
        fingerprint: key.fingerprint,
        signer: 'Channel Test <channel@example.invalid>',
      },
    });
    server.files.set('/ubuntu/SHA256SUMS', bufferFile(Buffer.from(`${sha256('another')} *noble.img\n`)));
    await expect(app.call('images:lookup', { url: server.url('/ubuntu/noble.img') })).rejects.toMatchObject({
      name: 'BadSignatureError',
      message: expect.stringMatching(/^BAD signature: the checksum file was changed after it was signed \(/),
    });
  });
});

describe('channels: images:verifySha512', () => {
  it('downloads once as a task, checks the SHA-512, and answers the SHA-256; the image is then cached', async () => {
    app = appFixture();
    const { taskId } = (await app.call('images:verifySha512', {
      name: 'deb',
      url: server.url('/debian/disk.qcow2'),
      sha512: sha512(disk),
      format: 'qcow2',
    })) as { taskId: string };
    const task = await app.finished(taskId);
    expect(task).toMatchObject({
      state: 'succeeded',
      kind: 'images:verify',
      target: 'deb',
      result: { name: 'deb', sha256: sha256(disk), sizeBytes: disk.length },
    });
    expect(existsSync(join(app.dataDir, 'images', `${sha256(disk)}.qcow2`))).toBe(true);
    expect(server.requestsFor('/debian/disk.qcow2')).toHaveLength(1);
  });

  it('a mismatch fails the task with the digests and deletes the download', async () => {
    app = appFixture();
    const wrong = sha512(Buffer.from('not it'));
    const { taskId } = (await app.call('images:verifySha512', {
      name: 'deb',
      url: server.url('/debian/disk.qcow2'),
      sha512: wrong,
      format: 'qcow2',
    })) as { taskId: string };
    const task = await app.finished(taskId);
    expect(task.state).toBe('failed');
    expect(task.error?.message).toMatch(
      new RegExp(`has sha512 ${sha512(disk)} but ${wrong} was expected .*the download was deleted`),
    );
    expect(readdirSync(join(app.dataDir, 'images')).filter((n) => !n.endsWith('.lock'))).toEqual([]);
  });

  it('refuses a digest that is not a SHA-512', async () => {
    app = appFixture();
    await expect(
      app.call('images:verifySha512', {
        name: 'deb',
        url: server.url('/debian/disk.qcow2'),
        sha512: 'a'.repeat(64),
        format: 'qcow2',
      }),
    ).rejects.toThrow(/128 lowercase hexadecimal/);
    expect(server.requests).toEqual([]);
  });
});
