/**
 * The checksum file's signature, checked with the real gpgv against keys made here with
 * the real gpg: Ubuntu's detached binary `SHA256SUMS.gpg`, Debian's armoured
 * `SHA512SUMS.sign` and a clearsigned BSD `CHECKSUM`, served from an HTTP server in the
 * test. Nothing is mocked: every state comes from gpgv's status lines.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BadSignatureError, findCheckedDigest } from '../../../electron/services/images/index.js';
import { describeSignature } from '../../../shared/signature.js';
import { type TestSigningKey, useSigningKeys } from '../../support/gpg.js';
import { bufferFile, TestServer } from './server.js';
import { tempDir } from '../../support/temp-dir.js';

const A = 'a'.repeat(64);
const C = 'c'.repeat(64);
const D = 'd'.repeat(128);
const file = (b: Buffer | string) => bufferFile(Buffer.isBuffer(b) ? b : Buffer.from(b));

/** The two keys, or the test ends as skipped with the reason. */
const keys = useSigningKeys('Egress Test Publisher <publisher@example.invalid>');
let server: TestServer;
/** The app's keyring directory for one test: empty until a test puts a keyring in it. */
let keyrings: string;

beforeEach(async () => {
  server = await new TestServer().start();
  keyrings = join(tempDir('egress-keyrings-'), 'keyrings');
});
afterEach(() => server.close());

async function trust(key: TestSigningKey, name = 'publisher.gpg'): Promise<void> {
  mkdirSync(keyrings, { recursive: true });
  await key.exportKeyring(join(keyrings, name));
}

const longKeyId = (key: TestSigningKey) => key.fingerprint.slice(-16);
const check = (url: string, checksumsUrl?: string) =>
  findCheckedDigest(url, { keyringDir: keyrings, ...(checksumsUrl ? { checksumsUrl } : {}) });

describe('signatures of checksum files, checked with gpgv', () => {
  it('Ubuntu: SHA256SUMS with a detached binary SHA256SUMS.gpg is verified with the key in the app keyring directory', async (ctx) => {
    const { pub } = keys(ctx);
    const sums = Buffer.from(`${C} *other.img\n${A} *noble.img\n`);
    server.files.set('/u/SHA256SUMS', file(sums));
    server.files.set('/u/SHA256SUMS.gpg', file(await pub.detachSign(sums, false)));
    await trust(pub);
    const r = await check(server.url('/u/noble.img'));
    expect(r).toEqual({
      algorithm: 'sha256',
      digest: A,
      sumsUrl: server.url('/u/SHA256SUMS'),
      listedName: 'noble.img',
      signature: {
        state: 'verified',
        signatureUrl: server.url('/u/SHA256SUMS.gpg'),
        fingerprint: pub.fingerprint,
        signer: 'Egress Test Publisher <publisher@example.invalid>',
      },
    });
    expect(describeSignature(r.signature)).toBe(
      `signature verified: ${server.url('/u/SHA256SUMS.gpg')} is a good signature by key ${pub.fingerprint} (Egress Test Publisher <publisher@example.invalid>)`,
    );
  });

  it('Debian: SHA512SUMS with an armoured SHA512SUMS.sign (looked for after SHA512SUMS.gpg) is verified', async (ctx) => {
    const { pub } = keys(ctx);
    const sums = Buffer.from(`${D}  debian-12-genericcloud-amd64.qcow2\n`);
    server.files.set('/d/SHA512SUMS', file(sums));
    server.files.set('/d/SHA512SUMS.sign', file(await pub.detachSign(sums, true)));
    await trust(pub);
    const r = await check(server.url('/d/debian-12-genericcloud-amd64.qcow2'));
    expect(r).toMatchObject({
      algorithm: 'sha512',
      digest: D,
      signature: { state: 'verified', signatureUrl: server.url('/d/SHA512SUMS.sign'), fingerprint: pub.fingerprint },
    });
    expect(server.requests.slice(-2).map((q) => [q.path, q.status])).toEqual([
      ['/d/SHA512SUMS.gpg', 404],
      ['/d/SHA512SUMS.sign', 200],
    ]);
  });

  it('Fedora/Rocky: a clearsigned BSD CHECKSUM is checked as it is, with no signature file fetched', async (ctx) => {
    const { pub } = keys(ctx);
    const image = 'Fedora-Cloud-Base-Generic-42-1.1.x86_64.qcow2';
    server.files.set(
      '/f/CHECKSUM',
      file(await pub.clearsign(Buffer.from(`# ${image}: 491782144 bytes\nSHA256 (${image}) = ${C}\n`))),
    );
    await trust(pub);
    const r = await check(server.url(`/f/${image}`), server.url('/f/CHECKSUM'));
    expect(r).toMatchObject({
      digest: C,
      listedName: image,
      signature: { state: 'verified', signatureUrl: server.url('/f/CHECKSUM'), fingerprint: pub.fingerprint },
    });
    expect(server.requests.map((q) => q.path)).toEqual(['/f/CHECKSUM']);
  });

  it('a line outside the signed part of a clearsigned file is not used, even with a good signature', async (ctx) => {
    const { pub } = keys(ctx);
    const signed = await pub.clearsign(Buffer.from(`SHA256 (other.qcow2) = ${C}\n`));
    await trust(pub);
    // After the signature, and before the armour header: neither is signed.
    for (const [i, whole] of [
      Buffer.concat([signed, Buffer.from(`SHA256 (x.qcow2) = ${A}\n`)]),
      Buffer.concat([Buffer.from(`SHA256 (x.qcow2) = ${A}\n`), signed]),
    ].entries()) {
      server.files.set(`/f/${i}/CHECKSUM`, file(whole));
      const err = await check(server.url('/f/x.qcow2'), server.url(`/f/${i}/CHECKSUM`)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadSignatureError);
      expect((err as Error).message).toMatch(
        /lists x\.qcow2 outside the part of the file its signature covers; its digest is not used, nothing was saved$/,
      );
    }
  });

  it('no keyring for this publisher: the state says where to put its key, and which key signed', async (ctx) => {
    const { pub } = keys(ctx);
    const sums = Buffer.from(`${A} *noble.img\n`);
    server.files.set('/u/SHA256SUMS', file(sums));
    server.files.set('/u/SHA256SUMS.gpg', file(await pub.detachSign(sums, false)));
    const r = await check(server.url('/u/noble.img'));
    expect(r.digest).toBe(A);
    expect(r.signature).toEqual({
      state: 'no-keyring',
      signatureUrl: server.url('/u/SHA256SUMS.gpg'),
      keyringDir: keyrings,
      keyId: longKeyId(pub),
    });
    expect(describeSignature(r.signature)).toBe(
      `signature not verified: no keyring for this publisher on this machine (put its key in ${keyrings}); the signature is by key ${longKeyId(pub)}; the checksum file is as trustworthy as the connection it came over`,
    );
  });

  it('signed by a key not in the keyrings: unknown key, with its ID', async (ctx) => {
    const { pub, other } = keys(ctx);
    const sums = Buffer.from(`${A} *noble.img\n`);
    server.files.set('/u/SHA256SUMS', file(sums));
    server.files.set('/u/SHA256SUMS.gpg', file(await other.detachSign(sums, false)));
    await trust(pub);
    const r = await check(server.url('/u/noble.img'));
    expect(r.signature).toEqual({
      state: 'unknown-key',
      signatureUrl: server.url('/u/SHA256SUMS.gpg'),
      keyId: longKeyId(other),
      keyringDir: keyrings,
    });
    expect(describeSignature(r.signature)).toMatch(
      new RegExp(`^signature not verified: signed by a key not in your keyrings \\(${longKeyId(other)}\\)`),
    );
  });

  it('no signature beside the checksum file: said so, with the files looked for', async (ctx) => {
    const { pub } = keys(ctx);
    await trust(pub);
    server.files.set('/u/SHA256SUMS', file(`${A} *noble.img\n`));
    const r = await check(server.url('/u/noble.img'));
    expect(r.signature).toEqual({ state: 'unsigned', tried: ['SHA256SUMS.gpg', 'SHA256SUMS.sign'] });
    expect(describeSignature(r.signature)).toMatch(
      /^signature not verified: no signature published beside the checksum file \(looked for SHA256SUMS\.gpg, SHA256SUMS\.sign\)/,
    );
  });

  it('a checksum file changed after signing is BAD: an error, no digest', async (ctx) => {
    const { pub } = keys(ctx);
    const sums = Buffer.from(`${A} *noble.img\n`);
    server.files.set('/u/SHA256SUMS', file(`${C} *noble.img\n`));
    server.files.set('/u/SHA256SUMS.gpg', file(await pub.detachSign(sums, false)));
    await trust(pub);
    const err = await check(server.url('/u/noble.img')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadSignatureError);
    expect((err as Error).message).toBe(
      `BAD signature: the checksum file was changed after it was signed (${server.url('/u/SHA256SUMS')}, signature ${server.url('/u/SHA256SUMS.gpg')}, key ${longKeyId(pub)}); its digest is not used, nothing was saved`,
    );
    // A changed clearsigned file too.
    const signed = (await pub.clearsign(Buffer.from(`SHA256 (x.qcow2) = ${A}\n`))).toString('utf8').replace(A, C);
    server.files.set('/f/CHECKSUM', file(signed));
    await expect(check(server.url('/f/x.qcow2'), server.url('/f/CHECKSUM'))).rejects.toThrow(
      /^BAD signature: the checksum file was changed after it was signed/,
    );
  });

  it('without gpgv nothing is claimed: not checked, and why', async (ctx) => {
    const { pub } = keys(ctx);
    const sums = Buffer.from(`${A} *noble.img\n`);
    server.files.set('/u/SHA256SUMS', file(sums));
    server.files.set('/u/SHA256SUMS.gpg', file(await pub.detachSign(sums, false)));
    await trust(pub);
    const r = await findCheckedDigest(server.url('/u/noble.img'), {
      keyringDir: keyrings,
      gpgv: join(keyrings, 'no-such-gpgv'),
    });
    expect(r.signature).toEqual({
      state: 'not-checked',
      reason: 'gpgv is not installed (Debian and Ubuntu: apt install gpgv)',
    });
  });
});
