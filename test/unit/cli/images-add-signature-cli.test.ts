/**
 * `egress-desk images add` and the checksum file's signature, with real gpg and gpgv (the
 * setup: images-cli-fixture.ts; the keys: test/support/gpg.ts, skipped with the reason
 * where gpg is missing).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TestSigningKey, useSigningKeys } from '../../support/gpg.js';
import { bufferFile, sha256 } from '../images/server.js';
import { debian, other, sha512, ubuntu, useImagesCli } from './images-cli-fixture.js';

const fx = useImagesCli();
const { cli, configFile, cacheDir, readConfig } = fx;

describe("egress-desk images add: the checksum file's signature (real gpg and gpgv)", () => {
  const keys = useSigningKeys('CLI Test Publisher <publisher@example.invalid>');
  /** The publisher's key in the app's keyring directory, `<data dir>/keyrings`. */
  const trust = async (key: TestSigningKey) => {
    mkdirSync(join(fx.home, 'keyrings'), { recursive: true });
    await key.exportKeyring(join(fx.home, 'keyrings', 'publisher.gpg'));
  };
  const signUbuntu = async (key: TestSigningKey) => {
    const sums = Buffer.from(`${sha256(ubuntu)} *noble.img\n`);
    fx.server.files.set('/ubuntu/SHA256SUMS', bufferFile(sums));
    fx.server.files.set('/ubuntu/SHA256SUMS.gpg', bufferFile(await key.detachSign(sums, false)));
  };

  it('verified with the key in <data dir>/keyrings: said on stderr and in --json, and the digest stored', async (ctx) => {
    const { pub } = keys(ctx);
    await signUbuntu(pub);
    await trust(pub);
    const r = await cli('images', 'add', 'noble-2', fx.server.url('/ubuntu/noble.img'), '--yes', '--json');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `${fx.server.url('/ubuntu/SHA256SUMS')} lists noble.img with sha256 ${sha256(ubuntu)}\nsignature verified: ${fx.server.url('/ubuntu/SHA256SUMS.gpg')} is a good signature by key ${pub.fingerprint} (CLI Test Publisher <publisher@example.invalid>)\n`,
    );
    expect(JSON.parse(r.stdout)).toEqual({
      name: 'noble-2',
      file: configFile(),
      replaced: false,
      image: { url: fx.server.url('/ubuntu/noble.img'), sha256: sha256(ubuntu) },
      cached: false,
      published: {
        algorithm: 'sha256',
        digest: sha256(ubuntu),
        sumsUrl: fx.server.url('/ubuntu/SHA256SUMS'),
        listedName: 'noble.img',
        signature: {
          state: 'verified',
          signatureUrl: fx.server.url('/ubuntu/SHA256SUMS.gpg'),
          fingerprint: pub.fingerprint,
          signer: 'CLI Test Publisher <publisher@example.invalid>',
        },
      },
    });
    expect(readConfig().kvm.images!['noble-2']!.sha256).toBe(sha256(ubuntu));
  });

  it('no keyring, or a key not in it: said plainly, and the digest is still offered', async (ctx) => {
    const { pub, other } = keys(ctx);
    await signUbuntu(other);
    const none = await cli('images', 'add', 'noble-2', fx.server.url('/ubuntu/noble.img'), '--yes');
    expect(none.code).toBe(0);
    expect(none.stderr).toContain(
      `note: signature not verified: no keyring for this publisher on this machine (put its key in ${join(fx.home, 'keyrings')}); the signature is by key ${other.fingerprint.slice(-16)}; `,
    );
    await trust(pub);
    const unknown = await cli('images', 'add', 'noble-3', fx.server.url('/ubuntu/noble.img'), '--yes', '--json');
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain(
      `note: signature not verified: signed by a key not in your keyrings (${other.fingerprint.slice(-16)}); if you trust it, put the publisher's key in ${join(fx.home, 'keyrings')}; `,
    );
    expect((JSON.parse(unknown.stdout) as { published: { signature: unknown } }).published.signature).toEqual({
      state: 'unknown-key',
      signatureUrl: fx.server.url('/ubuntu/SHA256SUMS.gpg'),
      keyId: other.fingerprint.slice(-16),
      keyringDir: join(fx.home, 'keyrings'),
    });
  });

  it('a checksum file changed after signing: BAD, exit 1, nothing downloaded, nothing saved', async (ctx) => {
    const { pub } = keys(ctx);
    await trust(pub);
    // Debian's layout: the SHA-512 would need a download; a BAD signature stops before it.
    const signedSums = Buffer.from(`${sha512(debian)}  disk.qcow2\n`);
    fx.server.files.set('/debian/SHA512SUMS', bufferFile(Buffer.from(`${sha512(other)}  disk.qcow2\n`)));
    fx.server.files.set('/debian/SHA512SUMS.sign', bufferFile(await pub.detachSign(signedSums, true)));
    const before = readFileSync(configFile(), 'utf8');
    const r = await cli('images', 'add', 'deb', fx.server.url('/debian/disk.qcow2'), '--yes', '--json');
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(
      `egress-desk: BAD signature: the checksum file was changed after it was signed (${fx.server.url('/debian/SHA512SUMS')}, signature ${fx.server.url('/debian/SHA512SUMS.sign')}, key ${pub.fingerprint.slice(-16)}); its digest is not used, nothing was saved\n`,
    );
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    expect(fx.server.requestsFor('/debian/disk.qcow2')).toEqual([]);
    expect(existsSync(cacheDir()) ? readdirSync(cacheDir()) : []).toEqual([]);
  });
});
