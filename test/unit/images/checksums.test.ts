import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchPublisherDigest, parseSums, PublisherDigestError } from '../../../electron/services/images/index.js';
import { bufferFile, TestServer } from './server.js';

const A = 'a'.repeat(64);
const B = 'B'.repeat(64);
const C = 'c'.repeat(64);
let server: TestServer;
beforeEach(async () => (server = await new TestServer().start()));
afterEach(() => server.close());

describe('parseSums', () => {
  it('reads GNU text and binary lines, BSD lines and escaped names; skips the rest', () => {
    const text = [
      '-----BEGIN PGP SIGNED MESSAGE-----',
      `${A}  debian.qcow2`,
      `${B} *./ubuntu.img`,
      `SHA256 (fedora.qcow2) = ${C}`,
      `\\${A}  back\\\\slash.img`,
      `SHA512 (other) = ${'d'.repeat(128)}`,
      '# comment',
      '',
    ].join('\r\n');
    expect(parseSums(text)).toEqual([
      { sha256: A, name: 'debian.qcow2' },
      { sha256: B.toLowerCase(), name: 'ubuntu.img' },
      { sha256: C, name: 'fedora.qcow2' },
      { sha256: A, name: 'back\\slash.img' },
    ]);
  });
});

describe('fetchPublisherDigest', () => {
  it('finds the entry for the URL\'s file name in the SHA256SUMS of the same directory', async () => {
    server.files.set('/releases/24.04/SHA256SUMS', bufferFile(Buffer.from(`${C} *other.img\n${A} *noble-server-cloudimg-amd64.img\n`)));
    const r = await fetchPublisherDigest(server.url('/releases/24.04/noble-server-cloudimg-amd64.img'));
    expect(r).toEqual({ sha256: A, sumsUrl: server.url('/releases/24.04/SHA256SUMS'), name: 'noble-server-cloudimg-amd64.img' });
  });

  it('says when the file has no entry for the name', async () => {
    server.files.set('/d/SHA256SUMS', bufferFile(Buffer.from(`${A}  other.img\n`)));
    await expect(fetchPublisherDigest(server.url('/d/mine.img'))).rejects.toThrow(`SHA256SUMS beside ${server.url('/d/mine.img')} has no entry for mine.img`);
  });

  it('says when there is no SHA256SUMS, and that Debian-style SHA512SUMS is all there is', async () => {
    await expect(fetchPublisherDigest(server.url('/none/x.qcow2'))).rejects.toThrow(`no SHA256SUMS at ${server.url('/none/SHA256SUMS')}`);
    server.files.set('/debian/SHA512SUMS', bufferFile(Buffer.from(`${'d'.repeat(128)}  debian-12-genericcloud-amd64.qcow2\n`)));
    const err = await fetchPublisherDigest(server.url('/debian/debian-12-genericcloud-amd64.qcow2')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PublisherDigestError);
    expect((err as Error).message).toMatch(/no SHA256SUMS at \S+ \(the publisher lists only SHA512SUMS there, as Debian does/);
  });

  it('refuses conflicting entries and reports HTTP errors', async () => {
    server.files.set('/d/SHA256SUMS', bufferFile(Buffer.from(`${A}  x.img\n${C}  x.img\n`)));
    await expect(fetchPublisherDigest(server.url('/d/x.img'))).rejects.toThrow(/lists x\.img with different digests/);
    server.statusFor.set('/e/SHA256SUMS', 500);
    await expect(fetchPublisherDigest(server.url('/e/x.img'))).rejects.toThrow(/^HTTP 500 Internal Server Error from/);
  });

  it('reads SHA256SUMS beside a file:// URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'egress-sums-'));
    writeFileSync(join(dir, 'SHA256SUMS'), `SHA256 (disk.qcow2) = ${C}\n`);
    expect((await fetchPublisherDigest(pathToFileURL(join(dir, 'disk.qcow2')).href)).sha256).toBe(C);
  });
});
