import { writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findPublishedDigest, parseSums, PublisherDigestError } from '../../../electron/services/images/index.js';
import { bufferFile, TestServer } from './server.js';
import { tempDir } from '../../support/temp-dir.js';

const A = 'a'.repeat(64);
const B = 'B'.repeat(64);
const C = 'c'.repeat(64);
const D = 'd'.repeat(128);
const E = 'e'.repeat(128);
const text = (t: string) => bufferFile(Buffer.from(t));
let server: TestServer;
beforeEach(async () => (server = await new TestServer().start()));
afterEach(() => server.close());

/** What findPublishedDigest answers: the digest, the checksum file it read (a path on the test server), the name listed. */
const found = (algorithm: 'sha256' | 'sha512', digest: string, sumsPath: string, listedName: string) => ({
  algorithm,
  digest,
  sumsUrl: server.url(sumsPath),
  listedName,
});

describe('parseSums', () => {
  it('reads GNU text and binary lines, BSD lines, bare digests and escaped names, for SHA-256 and SHA-512; skips the rest', () => {
    const lines = [
      '-----BEGIN PGP SIGNED MESSAGE-----',
      'Hash: SHA256',
      `${A}  debian.qcow2`,
      `${B} *./ubuntu.img`,
      `SHA256 (fedora.qcow2) = ${C}`,
      `\\${A}  back\\\\slash.img`,
      `SHA512 (other) = ${D}`,
      `${E}  debian-13.qcow2`,
      `${C}`,
      // A digest of the wrong length for its tag, and digests of other lengths (MD5, SHA-1), are not entries.
      `SHA256 (short) = ${D}`,
      `${'f'.repeat(32)}  md5.img`,
      `${'f'.repeat(40)}  sha1.img`,
      '# Rocky-9-GenericCloud.qcow2: 609812480 bytes',
      '',
    ].join('\r\n');
    expect(parseSums(lines)).toEqual([
      { algorithm: 'sha256', digest: A, name: 'debian.qcow2' },
      { algorithm: 'sha256', digest: B.toLowerCase(), name: 'ubuntu.img' },
      { algorithm: 'sha256', digest: C, name: 'fedora.qcow2' },
      { algorithm: 'sha256', digest: A, name: 'back\\slash.img' },
      { algorithm: 'sha512', digest: D, name: 'other' },
      { algorithm: 'sha512', digest: E, name: 'debian-13.qcow2' },
      { algorithm: 'sha256', digest: C, name: '' },
    ]);
  });
});

describe('findPublishedDigest: each publisher layout, from a server in the test', () => {
  it("Ubuntu: SHA256SUMS with '*' before binary names", async () => {
    server.files.set('/releases/24.04/SHA256SUMS', text(`${C} *other.img\n${A} *noble-server-cloudimg-amd64.img\n`));
    const r = await findPublishedDigest(server.url('/releases/24.04/noble-server-cloudimg-amd64.img'));
    expect(r).toEqual(found('sha256', A, '/releases/24.04/SHA256SUMS', 'noble-server-cloudimg-amd64.img'));
    expect(server.requests.map((q) => q.path)).toEqual(['/releases/24.04/SHA256SUMS']);
  });

  it('Debian: SHA512SUMS only, found after the SHA-256 files that are not there', async () => {
    server.files.set(
      '/bookworm/latest/SHA512SUMS',
      text(`${E}  debian-12-generic-amd64.qcow2\n${D}  debian-12-genericcloud-amd64.qcow2\n`),
    );
    const r = await findPublishedDigest(server.url('/bookworm/latest/debian-12-genericcloud-amd64.qcow2'));
    expect(r).toEqual(found('sha512', D, '/bookworm/latest/SHA512SUMS', 'debian-12-genericcloud-amd64.qcow2'));
    expect(server.requests.map((q) => [q.path, q.status])).toEqual([
      ['/bookworm/latest/SHA256SUMS', 404],
      ['/bookworm/latest/CHECKSUM', 404],
      ['/bookworm/latest/debian-12-genericcloud-amd64.qcow2.CHECKSUM', 404],
      ['/bookworm/latest/SHA512SUMS', 200],
    ]);
  });

  it("Fedora: a clearsigned BSD '<release>-CHECKSUM' found through the directory's index", async () => {
    const image = 'Fedora-Cloud-Base-Generic-42-1.1.x86_64.qcow2';
    const sums = [
      '-----BEGIN PGP SIGNED MESSAGE-----',
      'Hash: SHA256',
      '',
      `# ${image}: 491782144 bytes`,
      `SHA256 (${image}) = ${C}`,
      '-----BEGIN PGP SIGNATURE-----',
      'iQIzBAEBCAAd',
      '-----END PGP SIGNATURE-----',
    ];
    server.files.set('/fedora/images/Fedora-Cloud-42-1.1-x86_64-CHECKSUM', text(sums.join('\n')));
    const index = `<html><body><a href="../">../</a><a href="Fedora-Cloud-42-1.1-x86_64-CHECKSUM">CHECKSUM</a><a href="/elsewhere/SHA256SUMS">x</a><a href="${image}">img</a></body></html>`;
    server.files.set('/fedora/images/', { ...text(index), contentType: 'text/html; charset=utf-8' });
    const r = await findPublishedDigest(server.url(`/fedora/images/${image}`));
    expect(r).toEqual(found('sha256', C, '/fedora/images/Fedora-Cloud-42-1.1-x86_64-CHECKSUM', image));
    // Links out of the image's directory are not followed.
    expect(server.requestsFor('/elsewhere/SHA256SUMS')).toEqual([]);
  });

  it("Rocky: '<image>.CHECKSUM' listing the dated file a 'latest' name links to", async () => {
    const dated = 'Rocky-9-GenericCloud-Base-9.6-20250531.0.x86_64.qcow2';
    server.files.set(
      '/rocky/9/Rocky-9-GenericCloud-Base.latest.x86_64.qcow2.CHECKSUM',
      text(`# ${dated}: 609812480 bytes\nSHA256 (${dated}) = ${A}\n`),
    );
    const r = await findPublishedDigest(server.url('/rocky/9/Rocky-9-GenericCloud-Base.latest.x86_64.qcow2'));
    expect(r).toMatchObject({ algorithm: 'sha256', digest: A, listedName: dated });
    // A checksum file for the whole directory is not read that way: its other entries are other images.
    server.files.set('/rocky/8/CHECKSUM', text(`SHA256 (${dated}) = ${A}\n`));
    await expect(
      findPublishedDigest(server.url('/rocky/8/Rocky-8-GenericCloud-Base.latest.x86_64.qcow2')),
    ).rejects.toThrow(/CHECKSUM: has no entry for Rocky-8-GenericCloud-Base\.latest\.x86_64\.qcow2/);
  });

  it('prefers the SHA-256 when one file lists both', async () => {
    server.files.set('/both/SHA256SUMS', text(`SHA512 (x.img) = ${D}\nSHA256 (x.img) = ${A}\n`));
    expect(await findPublishedDigest(server.url('/both/x.img'))).toMatchObject({ algorithm: 'sha256', digest: A });
  });

  it('--checksums: reads the named file (relative to the image or absolute) and nothing else', async () => {
    server.files.set('/sums/MY-SUMS.txt', text(`${A}  x.img\n`));
    expect(
      await findPublishedDigest(server.url('/img/x.img'), { checksumsUrl: server.url('/sums/MY-SUMS.txt') }),
    ).toMatchObject({ digest: A, sumsUrl: server.url('/sums/MY-SUMS.txt') });
    expect(await findPublishedDigest(server.url('/sums/x.img'), { checksumsUrl: 'MY-SUMS.txt' })).toMatchObject({
      digest: A,
    });
    expect(server.requests.map((q) => q.path)).toEqual(['/sums/MY-SUMS.txt', '/sums/MY-SUMS.txt']);
    await expect(
      findPublishedDigest(server.url('/img/x.img'), { checksumsUrl: server.url('/sums/none') }),
    ).rejects.toThrow(`there is no checksum file at ${server.url('/sums/none')} (HTTP 404)`);
  });
});

describe('findPublishedDigest: clear messages for what is wrong', () => {
  it('names every file it tried when none lists the image', async () => {
    server.files.set('/d/SHA256SUMS', text(`${A}  other.img\n`));
    server.statusFor.set('/d/CHECKSUM', 403);
    const err = (await findPublishedDigest(server.url('/d/mine.img')).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(PublisherDigestError);
    expect(err.message).toBe(
      `no checksum file beside ${server.url('/d/mine.img')} lists mine.img (SHA256SUMS: has no entry for mine.img; CHECKSUM: HTTP 403 Forbidden; mine.img.CHECKSUM: not found; SHA512SUMS: not found)`,
    );
  });

  it('a file that is not a checksum file (a web page, a truncated line) says so', async () => {
    server.files.set('/m/SHA256SUMS', text('<html><body>Not here</body></html>\n'));
    server.files.set('/m/SHA512SUMS', text(`${D.slice(0, 100)}  x.img\n`));
    await expect(findPublishedDigest(server.url('/m/x.img'))).rejects.toThrow(
      /\(SHA256SUMS: not a checksum file: no line holds a SHA-256 or SHA-512 digest .*; SHA512SUMS: not a checksum file/,
    );
    await expect(findPublishedDigest(server.url('/m/x.img'), { checksumsUrl: 'SHA256SUMS' })).rejects.toThrow(
      `${server.url('/m/SHA256SUMS')} is not a checksum file: no line holds`,
    );
  });

  it('refuses conflicting entries, reports HTTP errors of a named file, and a URL without a file name', async () => {
    server.files.set('/d/SHA256SUMS', text(`${A}  x.img\n${C}  x.img\n`));
    await expect(findPublishedDigest(server.url('/d/x.img'))).rejects.toThrow(
      /SHA256SUMS lists x\.img with 2 different sha256 digests; it cannot be trusted/,
    );
    server.statusFor.set('/e/SUMS', 500);
    await expect(findPublishedDigest(server.url('/e/x.img'), { checksumsUrl: 'SUMS' })).rejects.toThrow(
      /^HTTP 500 Internal Server Error from/,
    );
    await expect(findPublishedDigest(server.url('/e/'))).rejects.toThrow(/names a directory, not an image file/);
    await expect(findPublishedDigest('ftp://example.invalid/x.img')).rejects.toThrow(/the scheme ftp is not supported/);
  });

  it('reads the checksum file beside a file:// URL', async () => {
    const dir = tempDir('egress-sums-');
    writeFileSync(join(dir, 'SHA512SUMS'), `SHA512 (disk.qcow2) = ${D}\n`);
    expect(await findPublishedDigest(pathToFileURL(join(dir, 'disk.qcow2')).href)).toMatchObject({
      algorithm: 'sha512',
      digest: D,
    });
  });
});
