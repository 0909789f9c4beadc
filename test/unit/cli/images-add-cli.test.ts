/**
 * `egress-desk images add` (the setup: images-cli-fixture.ts): a digest given, read from the
 * publisher's checksum file (SHA256SUMS, Debian's SHA512SUMS, Fedora's and Rocky's BSD
 * lines), refused, and confirmed on a terminal. Signatures: images-add-signature-cli.test.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../../electron/cli/program.js';
import { validateProviderConfig } from '../../../shared/config.js';
import { runCliProcess } from '../../support/cli.js';
import { tempDir } from '../../support/temp-dir.js';
import { bufferFile, sha256 } from '../images/server.js';
import { debian, expectNoStack, other, sha512, ubuntu, unsigned, useImagesCli } from './images-cli-fixture.js';

const fx = useImagesCli();
const { cli, env, configFile, cacheDir, readConfig } = fx;

describe('egress-desk images add', () => {
  const noTempFiles = () => expect(readdirSync(fx.home).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  /** `egress-desk images add ARGS…`. */
  const add = (...args: string[]) => cli('images', 'add', ...args);
  /** `images add NAME IMAGE --checksums SUMS --yes`, the image and the checksum file on the test server. */
  const addChecked = (name: string, image: string, sums: string) =>
    add(name, fx.server.url(image), '--checksums', fx.server.url(sums), '--yes');

  it('--sha256 adds the image to the config file, which stays valid and keeps the other entries', async () => {
    const r = await add('fedora', 'https://example.org/f.qcow2', '--sha256', 'A'.repeat(64), '--default');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^added image fedora in .*config\.yaml \(sha256 a{64}\)/);
    const config = readConfig();
    expect(validateProviderConfig(config).ok).toBe(true);
    expect(config.kvm.images!.fedora).toEqual({ url: 'https://example.org/f.qcow2', sha256: 'a'.repeat(64) });
    expect(Object.keys(config.kvm.images!)).toEqual(['debian-12', 'noble', 'fedora']);
    expect(config.kvm.defaults!.image).toBe('fedora');
    noTempFiles();
  });

  it('reads the digest from SHA256SUMS beside the URL with --yes, and says plainly that no signature was published', async () => {
    const r = await add('noble-2', fx.server.url('/ubuntu/noble.img'), '--format', 'raw', '--yes');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `${fx.server.url('/ubuntu/SHA256SUMS')} lists noble.img with sha256 ${sha256(ubuntu)}\n${unsigned('SHA256SUMS')}`,
    );
    expect(r.stdout).toMatch(/download it with `egress-desk images pull noble-2`\n$/);
    expect(readConfig().kvm.images!['noble-2']).toEqual({
      url: fx.server.url('/ubuntu/noble.img'),
      sha256: sha256(ubuntu),
      format: 'raw',
    });
    // The image itself was not downloaded: a SHA-256 needs no download.
    expect(fx.server.requestsFor('/ubuntu/noble.img')).toEqual([]);
  });

  it('Debian (SHA512SUMS only): downloads once, checks the SHA-512, stores the SHA-256; the image is then cached', async () => {
    const r = await add('deb', fx.server.url('/debian/disk.qcow2'), '--yes');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `${fx.server.url('/debian/SHA512SUMS')} lists disk.qcow2 with sha512 ${sha512(debian)}\n${unsigned('SHA512SUMS')}`,
    );
    expect(r.stderr).toContain(
      `deb: 92.8 KiB downloaded; sha512 matches the publisher's; its sha256 is ${sha256(debian)}\n`,
    );
    expect(r.stdout).toMatch(
      new RegExp(`^added image deb in \\S+ \\(sha256 ${sha256(debian)}\\); it is in the image cache already\n$`),
    );
    expect(readConfig().kvm.images!.deb).toEqual({ url: fx.server.url('/debian/disk.qcow2'), sha256: sha256(debian) });
    expect(fx.server.requestsFor('/debian/disk.qcow2')).toHaveLength(1);
    const pull = await cli('images', 'pull', 'deb');
    expect(pull.stdout).toMatch(/^deb: already in the cache/);
    expect(fx.server.requestsFor('/debian/disk.qcow2')).toHaveLength(1);
  });

  it('a SHA-512 mismatch deletes the download and leaves the config unchanged', async () => {
    fx.server.files.set('/debian/SHA512SUMS', bufferFile(Buffer.from(`${sha512(other)}  disk.qcow2\n`)));
    const before = readFileSync(configFile(), 'utf8');
    const r = await add('deb', fx.server.url('/debian/disk.qcow2'), '--yes');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /\negress-desk: the image from http:\S+\/debian\/disk\.qcow2 has sha512 [0-9a-f]{128} but [0-9a-f]{128} was expected \(\d+ bytes\); the download was deleted and is not used/,
    );
    expectNoStack(r.stderr);
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    expect(readdirSync(cacheDir()).filter((n) => !n.endsWith('.lock'))).toEqual([]);
  });

  it('Fedora and Rocky layouts: BSD lines in a named checksum file (--checksums) and in <image>.CHECKSUM', async () => {
    fx.server.files.set(
      '/fedora/Fedora-Cloud-42-1.1-x86_64-CHECKSUM',
      bufferFile(
        Buffer.from(
          `-----BEGIN PGP SIGNED MESSAGE-----\n\n# noble.img: 1 bytes\nSHA256 (noble.img) = ${sha256(ubuntu)}\n`,
        ),
      ),
    );
    const fedora = await addChecked('fed', '/ubuntu/noble.img', '/fedora/Fedora-Cloud-42-1.1-x86_64-CHECKSUM');
    expect(fedora.code).toBe(0);
    expect(readConfig().kvm.images!.fed!.sha256).toBe(sha256(ubuntu));
    fx.server.files.set('/rocky/Rocky-9.latest.qcow2', bufferFile(other));
    fx.server.files.set(
      '/rocky/Rocky-9.latest.qcow2.CHECKSUM',
      bufferFile(Buffer.from(`SHA256 (Rocky-9-20250531.qcow2) = ${sha256(other)}\n`)),
    );
    const rocky = await add('rocky', fx.server.url('/rocky/Rocky-9.latest.qcow2'), '--yes');
    expect(rocky.code).toBe(0);
    expect(rocky.stderr).toContain(
      `Rocky-9.latest.qcow2.CHECKSUM lists Rocky-9-20250531.qcow2 with sha256 ${sha256(other)}`,
    );
    expect(readConfig().kvm.images!.rocky!.sha256).toBe(sha256(other));
  });

  it('without a terminal and without --yes it refuses, and asks for nothing over the network', async () => {
    const before = readFileSync(configFile(), 'utf8');
    const r = await add('noble-2', fx.server.url('/ubuntu/noble.img'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "egress-desk: no terminal to confirm the digest from the publisher's checksum file: pass --yes to accept it, or --sha256 HEX with a digest you trust\n",
    );
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    expect(fx.server.requests).toHaveLength(0);
  });

  it('refuses an invalid name or URL (exit 2) and an existing name without --replace (exit 1); the file is unchanged', async () => {
    const before = readFileSync(configFile(), 'utf8');
    const name = await add('Bad_Name', 'https://example.org/x.qcow2', '--sha256', 'a'.repeat(64));
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(
      /^egress-desk: cannot add image "Bad_Name":\n {2}kvm\.images\.Bad_Name: name must be 1-63 characters/,
    );
    const url = await add('x', 'ftp://example.org/x.qcow2', '--sha256', 'a'.repeat(64));
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/kvm\.images\.x\.url: must be a URL with scheme https, http, file \(got "ftp"\)/);
    const digest = await add('x', 'https://example.org/x.qcow2', '--sha256', 'abc');
    expect(digest.code).toBe(2);
    const dup = await add('noble', 'https://example.org/x.qcow2', '--sha256', 'a'.repeat(64));
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already has an image named "noble" \(http:\S+\); pass --replace to replace it\n$/);
    for (const r of [name, url, digest, dup]) expectNoStack(r.stderr);
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    const replaced = await add('noble', 'https://example.org/x.qcow2', '--sha256', 'a'.repeat(64), '--replace');
    expect(replaced.code).toBe(0);
    expect(readConfig().kvm.images!.noble!.url).toBe('https://example.org/x.qcow2');
    noTempFiles();
  });

  it('explains a checksum file that is missing, malformed or without the image, one line each, exit 1', async () => {
    const none = await add('deb', fx.server.url('/ubuntu/none.img'), '--yes');
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `egress-desk: no checksum file beside ${fx.server.url('/ubuntu/none.img')} lists none.img (SHA256SUMS: has no entry for none.img; CHECKSUM: not found; none.img.CHECKSUM: not found; SHA512SUMS: not found); pass --checksums URL, or --sha256 HEX with a digest you trust\n`,
    );
    fx.server.files.set('/bad/SUMS', bufferFile(Buffer.from('<html>moved</html>\n')));
    const bad = await addChecked('deb', '/ubuntu/noble.img', '/bad/SUMS');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^egress-desk: http:\S+\/bad\/SUMS is not a checksum file: no line holds a SHA-256 or SHA-512 digest in GNU form .*; pass --checksums URL, or --sha256 HEX with a digest you trust\n$/,
    );
    const missing = await addChecked('deb', '/ubuntu/noble.img', '/bad/NONE');
    expect(missing.stderr).toMatch(/^egress-desk: there is no checksum file at http:\S+\/bad\/NONE \(HTTP 404\);/);
    for (const r of [none, bad, missing]) expectNoStack(r.stderr);
    expect(readConfig().kvm.images!.deb).toBeUndefined();
  });

  it('--list prints the built-in images; a built-in name needs no URL', async () => {
    const list = await add('--list');
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME +PUBLISHED +IMAGE$/);
    expect(list.stdout).toMatch(/^debian-12 +sha512 +Debian 12 \(bookworm\) genericcloud, amd64$/m);
    expect(list.stdout).toMatch(/^ubuntu-24\.04-minimal +sha256 /m);
    expect(list.stdout).toContain('https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS');
    // With a digest given nothing is fetched, so the built-in URL is stored without contacting it.
    const r = await add('debian-12', '--sha256', 'c'.repeat(64), '--replace');
    expect(r.code).toBe(0);
    expect(readConfig().kvm.images!['debian-12']).toEqual({
      url: 'https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2',
      sha256: 'c'.repeat(64),
      format: 'qcow2',
    });
  });

  it('usage errors: no NAME, an unknown name without URL, --sha256 with --checksums, --list with a name', async () => {
    const cases = [
      [['images', 'add'], /^egress-desk: images add: NAME is missing \(or pass --list to see the built-in images\)\n$/],
      [
        ['images', 'add', 'mine'],
        /^egress-desk: images add: URL is missing; only a built-in image \(debian-13, debian-12, .*\) can be added by name alone\n$/,
      ],
      [
        ['images', 'add', 'x', 'https://example.org/x.img', '--sha256', 'a'.repeat(64), '--checksums', 'SUMS'],
        /^egress-desk: pass --sha256 or --checksums, not both\n$/,
      ],
      [['images', 'add', 'x', '--list'], /^egress-desk: --list adds nothing: pass it alone\n$/],
    ] as const;
    for (const [args, message] of cases) {
      const r = await cli(...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(fx.server.requests).toHaveLength(0);
  });

  it('creates the app config when there is none yet', async () => {
    const fresh = tempDir('egress-images-fresh-');
    const r = await runCliProcess(
      ['images', 'add', 'img', 'https://example.org/i.qcow2', '--sha256', 'b'.repeat(64)],
      { EGRESS_DESK_HOME: fresh, HOME: fx.work },
      fx.work,
    );
    expect(r.code).toBe(0);
    const config = parse(readFileSync(join(fresh, 'config.yaml'), 'utf8')) as unknown;
    expect(validateProviderConfig(config).ok).toBe(true);
  });
});

describe('egress-desk images add on a terminal (in-process, stdin injected)', () => {
  const run = async (answer: string, url = fx.server.url('/ubuntu/noble.img')) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['images', 'add', 'noble-2', url], {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env: env(),
      cwd: fx.work,
      stdin: Readable.from([answer]),
      isTTY: { stdin: true, stderr: true },
    });
    return { code, stdout, stderr };
  };

  it('asks, and stores on "y"', async () => {
    const r = await run('y\n');
    expect(r.stderr).toContain(`Store image noble-2 with sha256 ${sha256(ubuntu)}? [y/N] `);
    expect(r.code).toBe(0);
    expect(readConfig().kvm.images!['noble-2']!.sha256).toBe(sha256(ubuntu));
  });

  it('asks before the download a SHA-512 needs; "n" downloads nothing', async () => {
    const no = await run('n\n', fx.server.url('/debian/disk.qcow2'));
    expect(no.stderr).toContain(
      'Only a SHA-512 is published: download disk.qcow2 now, check it, and store image noble-2 with its sha256? [y/N] ',
    );
    expect(no.code).toBe(1);
    expect(fx.server.requestsFor('/debian/disk.qcow2')).toEqual([]);
    const yes = await run('y\n', fx.server.url('/debian/disk.qcow2'));
    expect(yes.code).toBe(0);
    expect(readConfig().kvm.images!['noble-2']!.sha256).toBe(sha256(debian));
  });

  it('stores nothing on any other answer, or at end of input', async () => {
    const before = readFileSync(configFile(), 'utf8');
    for (const answer of ['n\n', '', 'maybe\n']) {
      const r = await run(answer);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/not stored: .* is unchanged\n$/);
    }
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
  });
});
