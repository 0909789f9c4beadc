import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { parse, stringify } from 'yaml';
import { spawn } from 'node:child_process';
import { validateProviderConfig } from '../../../shared/config.js';
import { runCli } from '../../../electron/cli/program.js';
import { cliBin } from '../../support/dist.js';
import { cliRunner, runCliProcess } from '../../support/cli.js';
import { bufferFile, sha256, TestServer } from '../images/server.js';
import { gpgMissing, TestSigningKey } from '../../support/gpg.js';
import { skipBecause } from '../../support/skip.js';
import { tempDir } from '../../support/temp-dir.js';

let server: TestServer;
let home: string;
let work: string;
const env = () => ({ EGRESS_DESK_HOME: home, HOME: work });
const cli = cliRunner(() => ({ home: work, data: home }));
const configFile = () => join(home, 'config.yaml');
const cacheDir = () => join(home, 'images');

const debian = Buffer.from('debian image bytes\n'.repeat(5000));
const ubuntu = Buffer.from('ubuntu image bytes\n'.repeat(7000));
const other = Buffer.from('an image no config names\n'.repeat(100));
const sha512 = (b: Buffer): string => createHash('sha512').update(b).digest('hex');
/** What is said of a checksum file with no signature beside it. */
const unsigned = (sums: string) =>
  `note: signature not verified: no signature published beside the checksum file (looked for ${sums}.gpg, ${sums}.sign); the checksum file is as trustworthy as the connection it came over\n`;

function writeConfig(images: Record<string, unknown>): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(
    configFile(),
    stringify({ type: 'kvm', kvm: { hosts: [{ name: 'local', address: 'local' }], machineTypes: { small: { vcpus: 1, memoryMiB: 512 } }, images } }),
  );
}

const readConfig = () => parse(readFileSync(configFile(), 'utf8')) as { kvm: { images?: Record<string, { url: string; sha256: string; format?: string }>; defaults?: { image?: string } } };
const expectNoStack = (text: string) => expect(text).not.toMatch(/^\s+at /m);

beforeEach(async () => {
  server = await new TestServer().start();
  server.files.set('/debian/disk.qcow2', bufferFile(debian));
  server.files.set('/ubuntu/noble.img', bufferFile(ubuntu));
  server.files.set('/other/x.qcow2', bufferFile(other));
  server.files.set('/ubuntu/SHA256SUMS', bufferFile(Buffer.from(`${sha256('x')} *jammy.img\n${sha256(ubuntu)} *noble.img\n`)));
  server.files.set('/debian/SHA512SUMS', bufferFile(Buffer.from(`${'d'.repeat(128)}  other.qcow2\n${sha512(debian)}  disk.qcow2\n`)));
  const root = tempDir('egress-images-cli-');
  home = join(root, 'home');
  work = join(root, 'work');
  mkdirSync(work);
  writeConfig({
    'debian-12': { url: server.url('/debian/disk.qcow2'), sha256: sha256(debian) },
    noble: { url: server.url('/ubuntu/noble.img'), sha256: sha256(ubuntu), format: 'raw' },
  });
});
afterEach(() => server.close());

describe('egress-desk images list / pull', () => {
  it('lists config images as absent, pulls one, then lists it as cached', async () => {
    const before = await cli('images', 'list');
    expect(before.code).toBe(0);
    expect(before.stdout.split('\n')[0]).toMatch(/^NAME +STATE +SIZE +SHA256 +URL$/);
    expect(before.stdout).toMatch(new RegExp(`debian-12 +absent +- +${sha256(debian).slice(0, 12)} +http://`));

    const pull = await cli('images', 'pull', 'debian-12');
    expect(pull.code).toBe(0);
    expect(pull.stdout).toMatch(/^debian-12: downloaded and verified: .*\.qcow2 \(92\.8 KiB, sha256 [0-9a-f]{12}…\)\n$/);
    expect(readFileSync(join(cacheDir(), `${sha256(debian)}.qcow2`)).equals(debian)).toBe(true);

    const again = await cli('images', 'pull', 'debian-12', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ name: 'debian-12', sha256: sha256(debian), size: debian.length, cached: true });
    expect(server.requestsFor('/debian/disk.qcow2')).toHaveLength(1);

    const after = await cli('images', 'list', '--json');
    const listed = JSON.parse(after.stdout) as { cacheDir: string; images: Array<Record<string, unknown>>; unreferenced: unknown[] };
    expect(listed.cacheDir).toBe(cacheDir());
    expect(listed.images).toMatchObject([
      { name: 'debian-12', state: 'cached', size: debian.length, format: 'qcow2' },
      { name: 'noble', state: 'absent', format: 'raw' },
    ]);
  });

  it('shows a partial download, and pull resumes it', async () => {
    server.dropAfter = 30_000;
    const first = await cli('images', 'pull', 'noble');
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/the partial download is kept and the next attempt resumes from there\n$/);
    expectNoStack(first.stderr);
    const list = await cli('images', 'list');
    expect(list.stdout).toMatch(/noble +partial +29\.3 KiB of 129\.9 KiB/);
    const second = await cli('images', 'pull', 'noble');
    expect(second.code).toBe(0);
    expect(server.requestsFor('/ubuntu/noble.img')[1]).toMatchObject({ status: 206, headers: { range: 'bytes=30000-' } });
  });

  it('pull: an unknown name, a digest mismatch and a missing image are one-line errors, exit 1', async () => {
    const unknown = await cli('images', 'pull', 'fedora');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe('egress-desk: no image named "fedora" (known: debian-12, noble)\n');

    writeConfig({ bad: { url: server.url('/debian/disk.qcow2'), sha256: sha256('not it') }, gone: { url: server.url('/gone.qcow2'), sha256: sha256('x') } });
    const bad = await cli('images', 'pull', 'bad');
    expect(bad.code).toBe(1);
    // Progress lines first (stderr is a pipe here), then the error: one line.
    const errors = bad.stderr.split('\n').filter((l) => l.startsWith('egress-desk:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^egress-desk: the image from http:\S+ has sha256 [0-9a-f]{64} but [0-9a-f]{64} was expected .*deleted and is not used/);
    expectNoStack(bad.stderr);
    expect(readdirSync(cacheDir()).filter((n) => !n.endsWith('.lock'))).toEqual([]);
    const gone = await cli('images', 'pull', 'gone');
    expect(gone.stderr).toMatch(/^egress-desk: the image was not found at http:\S+\/gone\.qcow2 \(HTTP 404\)\n$/);
  });

  it('Ctrl-C (SIGINT) stops a pull cleanly: the partial is kept, the lock released, and the next pull resumes', async () => {
    server.stallAfter = 40_000;
    const child = spawn(process.execPath, [cliBin, 'images', 'pull', 'noble'], { env: { PATH: process.env.PATH ?? '', ...env() }, cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const partial = join(cacheDir(), `${sha256(ubuntu)}.partial`);
    await expect.poll(() => existsSync(partial) && readFileSync(partial).length === 40_000, { timeout: 10_000 }).toBe(true);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(1);
    expect(stderr).toMatch(/egress-desk: the download of \S+ was cancelled; the partial download is kept/);
    expect(existsSync(partial)).toBe(true);
    expect(existsSync(join(cacheDir(), `${sha256(ubuntu)}.lock`))).toBe(false);
    const again = await cli('images', 'pull', 'noble');
    expect(again.code).toBe(0);
    expect(server.requestsFor('/ubuntu/noble.img')[1]).toMatchObject({ status: 206, headers: { range: 'bytes=40000-' } });
  });

  it('pull on a pipe prints plain progress lines on stderr (no carriage returns)', async () => {
    const r = await cli('images', 'pull', 'noble');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^noble: .*KiB of 129\.9 KiB/m);
    expect(r.stderr).not.toContain('\r');
  });
});

describe('egress-desk images prune', () => {
  beforeEach(async () => {
    await cli('images', 'pull', 'debian-12');
    // An image some earlier config referenced, and a partial download of it.
    writeConfig({ 'debian-12': { url: server.url('/debian/disk.qcow2'), sha256: sha256(debian) }, old: { url: server.url('/other/x.qcow2'), sha256: sha256(other) } });
    await cli('images', 'pull', 'old');
    writeFileSync(join(cacheDir(), `${'e'.repeat(64)}.partial`), 'partial bytes');
    writeConfig({ 'debian-12': { url: server.url('/debian/disk.qcow2'), sha256: sha256(debian) } });
  });

  it('--dry-run reports what no config image references, and removes nothing', async () => {
    const before = readdirSync(cacheDir()).sort();
    const r = await cli('images', 'prune', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`would remove eeeeeeeeeeee 13 B (partial download)\nwould remove ${sha256(other).slice(0, 12)} 2.4 KiB (image, last used ${new Date().toISOString().slice(0, 10)})\nwould free 2.5 KiB\n`);
    expect(readdirSync(cacheDir()).sort()).toEqual(before);
  });

  it('removes unreferenced images and partials, keeps referenced ones', async () => {
    const r = await cli('images', 'prune', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { dryRun: boolean; freed: number; removed: Array<{ sha256: string; kind: string }> };
    expect(out.removed.map((x) => x.kind).sort()).toEqual(['image', 'partial']);
    expect(readdirSync(cacheDir())).toEqual([`${sha256(debian)}.qcow2`]);
    expect((await cli('images', 'prune')).stdout).toBe('nothing to remove\n');
  });

  it('--max-size evicts least recently used images until the cache fits; a bad size is a usage error', async () => {
    // 92.8 KiB (pulled first, so least recently used) + 2.4 KiB: over 50 KiB until the first goes.
    const r = await cli('images', 'prune', '--max-size', '50K');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^removed ${sha256(debian).slice(0, 12)} 92\\.8 KiB \\(image, last used [0-9-]+\\)\nfreed 92\\.8 KiB\n$`));
    expect(existsSync(join(cacheDir(), `${sha256(other)}.qcow2`))).toBe(true);
    const bad = await cli('images', 'prune', '--max-size', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('egress-desk: --max-size: must be a size such as 20G, 512M or 1.5T (got "lots")\n');
  });

  it('refuses to prune from an invalid config', async () => {
    writeFileSync(configFile(), 'type: kvm\nkvm: { hosts: [], machineTypes: {} }\n');
    const r = await cli('images', 'prune');
    expect(r.code).toBe(1);
    expect(readdirSync(cacheDir())).toHaveLength(3);
  });
});

describe('egress-desk images add', () => {
  const noTempFiles = () => expect(readdirSync(home).filter((n) => n.endsWith('.tmp'))).toEqual([]);

  it('--sha256 adds the image to the config file, which stays valid and keeps the other entries', async () => {
    const r = await cli('images', 'add', 'fedora', 'https://example.org/f.qcow2', '--sha256', 'A'.repeat(64), '--default');
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
    const r = await cli('images', 'add', 'noble-2', server.url('/ubuntu/noble.img'), '--format', 'raw', '--yes');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`${server.url('/ubuntu/SHA256SUMS')} lists noble.img with sha256 ${sha256(ubuntu)}\n${unsigned('SHA256SUMS')}`);
    expect(r.stdout).toMatch(/download it with `egress-desk images pull noble-2`\n$/);
    expect(readConfig().kvm.images!['noble-2']).toEqual({ url: server.url('/ubuntu/noble.img'), sha256: sha256(ubuntu), format: 'raw' });
    // The image itself was not downloaded: a SHA-256 needs no download.
    expect(server.requestsFor('/ubuntu/noble.img')).toEqual([]);
  });

  it('Debian (SHA512SUMS only): downloads once, checks the SHA-512, stores the SHA-256; the image is then cached', async () => {
    const r = await cli('images', 'add', 'deb', server.url('/debian/disk.qcow2'), '--yes');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${server.url('/debian/SHA512SUMS')} lists disk.qcow2 with sha512 ${sha512(debian)}\n${unsigned('SHA512SUMS')}`);
    expect(r.stderr).toContain(`deb: 92.8 KiB downloaded; sha512 matches the publisher's; its sha256 is ${sha256(debian)}\n`);
    expect(r.stdout).toMatch(new RegExp(`^added image deb in \\S+ \\(sha256 ${sha256(debian)}\\); it is in the image cache already\n$`));
    expect(readConfig().kvm.images!.deb).toEqual({ url: server.url('/debian/disk.qcow2'), sha256: sha256(debian) });
    expect(server.requestsFor('/debian/disk.qcow2')).toHaveLength(1);
    const pull = await cli('images', 'pull', 'deb');
    expect(pull.stdout).toMatch(/^deb: already in the cache/);
    expect(server.requestsFor('/debian/disk.qcow2')).toHaveLength(1);
  });

  it('a SHA-512 mismatch deletes the download and leaves the config unchanged', async () => {
    server.files.set('/debian/SHA512SUMS', bufferFile(Buffer.from(`${sha512(other)}  disk.qcow2\n`)));
    const before = readFileSync(configFile(), 'utf8');
    const r = await cli('images', 'add', 'deb', server.url('/debian/disk.qcow2'), '--yes');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\negress-desk: the image from http:\S+\/debian\/disk\.qcow2 has sha512 [0-9a-f]{128} but [0-9a-f]{128} was expected \(\d+ bytes\); the download was deleted and is not used/);
    expectNoStack(r.stderr);
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    expect(readdirSync(cacheDir()).filter((n) => !n.endsWith('.lock'))).toEqual([]);
  });

  it('Fedora and Rocky layouts: BSD lines in a named checksum file (--checksums) and in <image>.CHECKSUM', async () => {
    server.files.set('/fedora/Fedora-Cloud-42-1.1-x86_64-CHECKSUM', bufferFile(Buffer.from(`-----BEGIN PGP SIGNED MESSAGE-----\n\n# noble.img: 1 bytes\nSHA256 (noble.img) = ${sha256(ubuntu)}\n`)));
    const fedora = await cli('images', 'add', 'fed', server.url('/ubuntu/noble.img'), '--checksums', server.url('/fedora/Fedora-Cloud-42-1.1-x86_64-CHECKSUM'), '--yes');
    expect(fedora.code).toBe(0);
    expect(readConfig().kvm.images!.fed!.sha256).toBe(sha256(ubuntu));
    server.files.set('/rocky/Rocky-9.latest.qcow2', bufferFile(other));
    server.files.set('/rocky/Rocky-9.latest.qcow2.CHECKSUM', bufferFile(Buffer.from(`SHA256 (Rocky-9-20250531.qcow2) = ${sha256(other)}\n`)));
    const rocky = await cli('images', 'add', 'rocky', server.url('/rocky/Rocky-9.latest.qcow2'), '--yes');
    expect(rocky.code).toBe(0);
    expect(rocky.stderr).toContain(`Rocky-9.latest.qcow2.CHECKSUM lists Rocky-9-20250531.qcow2 with sha256 ${sha256(other)}`);
    expect(readConfig().kvm.images!.rocky!.sha256).toBe(sha256(other));
  });

  it('without a terminal and without --yes it refuses, and asks for nothing over the network', async () => {
    const before = readFileSync(configFile(), 'utf8');
    const r = await cli('images', 'add', 'noble-2', server.url('/ubuntu/noble.img'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("egress-desk: no terminal to confirm the digest from the publisher's checksum file: pass --yes to accept it, or --sha256 HEX with a digest you trust\n");
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an invalid name or URL (exit 2) and an existing name without --replace (exit 1); the file is unchanged', async () => {
    const before = readFileSync(configFile(), 'utf8');
    const name = await cli('images', 'add', 'Bad_Name', 'https://example.org/x.qcow2', '--sha256', 'a'.repeat(64));
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/^egress-desk: cannot add image "Bad_Name":\n {2}kvm\.images\.Bad_Name: name must be 1-63 characters/);
    const url = await cli('images', 'add', 'x', 'ftp://example.org/x.qcow2', '--sha256', 'a'.repeat(64));
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/kvm\.images\.x\.url: must be a URL with scheme https, http, file \(got "ftp"\)/);
    const digest = await cli('images', 'add', 'x', 'https://example.org/x.qcow2', '--sha256', 'abc');
    expect(digest.code).toBe(2);
    const dup = await cli('images', 'add', 'noble', 'https://example.org/x.qcow2', '--sha256', 'a'.repeat(64));
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already has an image named "noble" \(http:\S+\); pass --replace to replace it\n$/);
    for (const r of [name, url, digest, dup]) expectNoStack(r.stderr);
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    const replaced = await cli('images', 'add', 'noble', 'https://example.org/x.qcow2', '--sha256', 'a'.repeat(64), '--replace');
    expect(replaced.code).toBe(0);
    expect(readConfig().kvm.images!.noble!.url).toBe('https://example.org/x.qcow2');
    noTempFiles();
  });

  it('explains a checksum file that is missing, malformed or without the image, one line each, exit 1', async () => {
    const none = await cli('images', 'add', 'deb', server.url('/ubuntu/none.img'), '--yes');
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `egress-desk: no checksum file beside ${server.url('/ubuntu/none.img')} lists none.img (SHA256SUMS: has no entry for none.img; CHECKSUM: not found; none.img.CHECKSUM: not found; SHA512SUMS: not found); pass --checksums URL, or --sha256 HEX with a digest you trust\n`,
    );
    server.files.set('/bad/SUMS', bufferFile(Buffer.from('<html>moved</html>\n')));
    const bad = await cli('images', 'add', 'deb', server.url('/ubuntu/noble.img'), '--checksums', server.url('/bad/SUMS'), '--yes');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^egress-desk: http:\S+\/bad\/SUMS is not a checksum file: no line holds a SHA-256 or SHA-512 digest in GNU form .*; pass --checksums URL, or --sha256 HEX with a digest you trust\n$/);
    const missing = await cli('images', 'add', 'deb', server.url('/ubuntu/noble.img'), '--checksums', server.url('/bad/NONE'), '--yes');
    expect(missing.stderr).toMatch(/^egress-desk: there is no checksum file at http:\S+\/bad\/NONE \(HTTP 404\);/);
    for (const r of [none, bad, missing]) expectNoStack(r.stderr);
    expect(readConfig().kvm.images!.deb).toBeUndefined();
  });

  it('--list prints the built-in images; a built-in name needs no URL', async () => {
    const list = await cli('images', 'add', '--list');
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME +PUBLISHED +IMAGE$/);
    expect(list.stdout).toMatch(/^debian-12 +sha512 +Debian 12 \(bookworm\) genericcloud, amd64$/m);
    expect(list.stdout).toMatch(/^ubuntu-24\.04-minimal +sha256 /m);
    expect(list.stdout).toContain('https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS');
    // With a digest given nothing is fetched, so the built-in URL is stored without contacting it.
    const r = await cli('images', 'add', 'debian-12', '--sha256', 'c'.repeat(64), '--replace');
    expect(r.code).toBe(0);
    expect(readConfig().kvm.images!['debian-12']).toEqual({ url: 'https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2', sha256: 'c'.repeat(64), format: 'qcow2' });
  });

  it('usage errors: no NAME, an unknown name without URL, --sha256 with --checksums, --list with a name', async () => {
    const cases = [
      [['images', 'add'], /^egress-desk: images add: NAME is missing \(or pass --list to see the built-in images\)\n$/],
      [['images', 'add', 'mine'], /^egress-desk: images add: URL is missing; only a built-in image \(debian-13, debian-12, .*\) can be added by name alone\n$/],
      [['images', 'add', 'x', 'https://example.org/x.img', '--sha256', 'a'.repeat(64), '--checksums', 'SUMS'], /^egress-desk: pass --sha256 or --checksums, not both\n$/],
      [['images', 'add', 'x', '--list'], /^egress-desk: --list adds nothing: pass it alone\n$/],
    ] as const;
    for (const [args, message] of cases) {
      const r = await cli(...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('creates the app config when there is none yet', async () => {
    const fresh = tempDir('egress-images-fresh-');
    const r = await runCliProcess(['images', 'add', 'img', 'https://example.org/i.qcow2', '--sha256', 'b'.repeat(64)], { EGRESS_DESK_HOME: fresh, HOME: work }, work);
    expect(r.code).toBe(0);
    const config = parse(readFileSync(join(fresh, 'config.yaml'), 'utf8')) as unknown;
    expect(validateProviderConfig(config).ok).toBe(true);
  });
});

describe('egress-desk images add: the checksum file\'s signature (real gpg and gpgv)', () => {
  let missing: string | undefined;
  let publisher: TestSigningKey | undefined;
  let stranger: TestSigningKey | undefined;
  beforeAll(async () => {
    missing = await gpgMissing();
    if (missing) return;
    [publisher, stranger] = await Promise.all([TestSigningKey.generate('CLI Test Publisher <publisher@example.invalid>'), TestSigningKey.generate('Someone Else <else@example.invalid>')]);
  }, 60_000);
  afterAll(async () => {
    await publisher?.close();
    await stranger?.close();
  });
  const keys = (ctx: TestContext) => {
    if (missing || !publisher || !stranger) skipBecause(ctx, missing ?? 'no test key was made');
    return { pub: publisher, other: stranger };
  };
  /** The publisher's key in the app's keyring directory, `<data dir>/keyrings`. */
  const trust = async (key: TestSigningKey) => {
    mkdirSync(join(home, 'keyrings'), { recursive: true });
    await key.exportKeyring(join(home, 'keyrings', 'publisher.gpg'));
  };
  const signUbuntu = async (key: TestSigningKey) => {
    const sums = Buffer.from(`${sha256(ubuntu)} *noble.img\n`);
    server.files.set('/ubuntu/SHA256SUMS', bufferFile(sums));
    server.files.set('/ubuntu/SHA256SUMS.gpg', bufferFile(await key.detachSign(sums, false)));
  };

  it('verified with the key in <data dir>/keyrings: said on stderr and in --json, and the digest stored', async (ctx) => {
    const { pub } = keys(ctx);
    await signUbuntu(pub);
    await trust(pub);
    const r = await cli('images', 'add', 'noble-2', server.url('/ubuntu/noble.img'), '--yes', '--json');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `${server.url('/ubuntu/SHA256SUMS')} lists noble.img with sha256 ${sha256(ubuntu)}\nsignature verified: ${server.url('/ubuntu/SHA256SUMS.gpg')} is a good signature by key ${pub.fingerprint} (CLI Test Publisher <publisher@example.invalid>)\n`,
    );
    expect(JSON.parse(r.stdout)).toEqual({
      name: 'noble-2',
      file: configFile(),
      replaced: false,
      image: { url: server.url('/ubuntu/noble.img'), sha256: sha256(ubuntu) },
      cached: false,
      published: {
        algorithm: 'sha256',
        digest: sha256(ubuntu),
        sumsUrl: server.url('/ubuntu/SHA256SUMS'),
        listedName: 'noble.img',
        signature: { state: 'verified', signatureUrl: server.url('/ubuntu/SHA256SUMS.gpg'), fingerprint: pub.fingerprint, signer: 'CLI Test Publisher <publisher@example.invalid>' },
      },
    });
    expect(readConfig().kvm.images!['noble-2']!.sha256).toBe(sha256(ubuntu));
  });

  it('no keyring, or a key not in it: said plainly, and the digest is still offered', async (ctx) => {
    const { pub, other } = keys(ctx);
    await signUbuntu(other);
    const none = await cli('images', 'add', 'noble-2', server.url('/ubuntu/noble.img'), '--yes');
    expect(none.code).toBe(0);
    expect(none.stderr).toContain(
      `note: signature not verified: no keyring for this publisher on this machine (put its key in ${join(home, 'keyrings')}); the signature is by key ${other.fingerprint.slice(-16)}; `,
    );
    await trust(pub);
    const unknown = await cli('images', 'add', 'noble-3', server.url('/ubuntu/noble.img'), '--yes', '--json');
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain(`note: signature not verified: signed by a key not in your keyrings (${other.fingerprint.slice(-16)}); if you trust it, put the publisher's key in ${join(home, 'keyrings')}; `);
    expect((JSON.parse(unknown.stdout) as { published: { signature: unknown } }).published.signature).toEqual({
      state: 'unknown-key',
      signatureUrl: server.url('/ubuntu/SHA256SUMS.gpg'),
      keyId: other.fingerprint.slice(-16),
      keyringDir: join(home, 'keyrings'),
    });
  });

  it('a checksum file changed after signing: BAD, exit 1, nothing downloaded, nothing saved', async (ctx) => {
    const { pub } = keys(ctx);
    await trust(pub);
    // Debian's layout: the SHA-512 would need a download; a BAD signature stops before it.
    const signedSums = Buffer.from(`${sha512(debian)}  disk.qcow2\n`);
    server.files.set('/debian/SHA512SUMS', bufferFile(Buffer.from(`${sha512(other)}  disk.qcow2\n`)));
    server.files.set('/debian/SHA512SUMS.sign', bufferFile(await pub.detachSign(signedSums, true)));
    const before = readFileSync(configFile(), 'utf8');
    const r = await cli('images', 'add', 'deb', server.url('/debian/disk.qcow2'), '--yes', '--json');
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(
      `egress-desk: BAD signature: the checksum file was changed after it was signed (${server.url('/debian/SHA512SUMS')}, signature ${server.url('/debian/SHA512SUMS.sign')}, key ${pub.fingerprint.slice(-16)}); its digest is not used, nothing was saved\n`,
    );
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
    expect(server.requestsFor('/debian/disk.qcow2')).toEqual([]);
    expect(existsSync(cacheDir()) ? readdirSync(cacheDir()) : []).toEqual([]);
  });
});

describe('egress-desk images add on a terminal (in-process, stdin injected)', () => {
  const run = async (answer: string, url = server.url('/ubuntu/noble.img')) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['images', 'add', 'noble-2', url], {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env: env(),
      cwd: work,
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
    const no = await run('n\n', server.url('/debian/disk.qcow2'));
    expect(no.stderr).toContain('Only a SHA-512 is published: download disk.qcow2 now, check it, and store image noble-2 with its sha256? [y/N] ');
    expect(no.code).toBe(1);
    expect(server.requestsFor('/debian/disk.qcow2')).toEqual([]);
    const yes = await run('y\n', server.url('/debian/disk.qcow2'));
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
