/**
 * The Add image form with the publisher's checksum file, in Debian's Chromium through the
 * real `egress-desk serve`: the well-known images are offered (never chosen here: they are
 * on the internet); for a URL on an HTTP server on 127.0.0.1 inside the test, "Read
 * checksum file" shows what each layout lists and what checking its signature found (no
 * signature published; "signature verified" with a key made here put in the app's data
 * directory; a changed file refused as BAD, with nothing filled in or saved). A
 * SHA-256 (Ubuntu's SHA256SUMS) fills the field; a SHA-512 only (Debian's SHA512SUMS) makes
 * Save download once and store the SHA-256; a mismatch saves nothing and says why; a URL
 * without a checksum file names the files tried; a checksum file kept elsewhere (BSD layout,
 * as Fedora and Rocky write it) is read from the URL typed in the Checksum file field, and
 * one that cannot be read is said under that field. The config on disk is read back each time.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpgMissing, TestSigningKey } from '../support/gpg.js';
import { skipBecause } from '../support/skip.js';
import { parseConfigText } from '../../electron/services/config/document.js';
import type { ProviderConfig } from '../../shared/config.js';
import { KNOWN_IMAGES } from '../../shared/known-images.js';
import { bufferFile, sha256, TestServer } from '../unit/images/server.js';
import { testEnv } from '../support/env.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp, testConfig } from './app-page.js';
import { publishScreenshot } from './screenshots.js';
import { nav } from './page-objects.js';

const env = testEnv();
const disk = Buffer.from('a debian genericcloud stand-in\n'.repeat(200_000));
const sha512 = (b: Buffer): string => createHash('sha512').update(b).digest('hex');

let app: AppPage;
let page: Page;
let server: TestServer;

const images = () => page.getByRole('region', { name: 'Images', exact: true });
const onDisk = (): ProviderConfig =>
  parseConfigText(readFileSync(join(app.home, 'config.yaml'), 'utf8'), 'config.yaml') as ProviderConfig;

async function openForm(name: string, url: string) {
  await images().getByRole('button', { name: 'Add image' }).click();
  const form = images().getByRole('group', { name: 'New image' });
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  await form.getByRole('textbox', { name: 'URL' }).fill(url);
  await form.getByRole('button', { name: 'Read checksum file' }).click();
  return form;
}

beforeAll(async () => {
  server = await new TestServer().start();
  server.files.set('/debian/disk.qcow2', bufferFile(disk));
  server.files.set(
    '/debian/SHA512SUMS',
    bufferFile(Buffer.from(`${sha512(Buffer.from('x'))}  other.qcow2\n${sha512(disk)}  disk.qcow2\n`)),
  );
  server.files.set('/ubuntu/noble.img', bufferFile(disk));
  server.files.set('/ubuntu/SHA256SUMS', bufferFile(Buffer.from(`${sha256(disk)} *noble.img\n`)));
  server.files.set('/bad/disk.qcow2', bufferFile(disk));
  server.files.set('/bad/SHA512SUMS', bufferFile(Buffer.from(`${sha512(Buffer.from('another file'))}  disk.qcow2\n`)));
  app = await openApp({ prefix: 'egress-image-add-', config: () => testConfig(env) });
  page = app.page;
  await nav(page, 'Images & machine types').click({ timeout: 30_000 });
  await images().waitFor();
});

afterAll(async () => {
  await app?.close();
  await server?.close();
});

describe("browser: Add image reads the publisher's checksum file", () => {
  it('offers the well-known images', async () => {
    await images().getByRole('button', { name: 'Add image' }).click();
    const form = images().getByRole('group', { name: 'New image' });
    const options = await form.getByRole('combobox', { name: 'Well-known image' }).locator('option').allInnerTexts();
    expect(options.slice(1)).toEqual(KNOWN_IMAGES.map((k) => k.title));
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
  });

  it("Debian 12 in two clicks (its quick-add button, Save); the SHA-512 is checked and the SHA-256 stored (the internet replaced by the test's server)", async () => {
    // The page asks for cloud.debian.org; on the wire between page and backend (Playwright's
    // WebSocket routing) that address becomes this test's server and back, so the product
    // build and the real backend run unchanged and nothing leaves the machine.
    const debian = KNOWN_IMAGES.find((k) => k.name === 'debian-12')!;
    const published = debian.url.slice(0, debian.url.lastIndexOf('/') + 1);
    const local = server.url('/bookworm/');
    server.files.set(`/bookworm/${debian.url.slice(published.length)}`, bufferFile(disk));
    server.files.set(
      `/bookworm/${debian.checksumsUrl.slice(published.length)}`,
      bufferFile(
        Buffer.from(
          `${sha512(Buffer.from('y'))}  debian-12-nocloud-amd64.qcow2\n${sha512(disk)}  ${debian.url.slice(published.length)}\n`,
        ),
      ),
    );
    const p = await app.context.newPage();
    await p.routeWebSocket(/\/ws$/, (ws) => {
      const backend = ws.connectToServer();
      ws.onMessage((m) => backend.send(String(m).replaceAll(published, local)));
      backend.onMessage((m) => ws.send(String(m).replaceAll(local, published)));
    });
    await p.goto(`${app.serve.origin}/`);
    await nav(p, 'Images & machine types').click({ timeout: 30_000 });
    const region = p.getByRole('region', { name: 'Images', exact: true });
    // Click one: Debian 12's quick-add button opens Add image with it chosen and its checksum file read.
    const quick = region.getByRole('group', { name: 'Add a well-known image' });
    await quick.getByRole('button', { name: `Add ${debian.title}` }).click();
    const form = region.getByRole('group', { name: 'New image' });
    await expect(form.getByRole('combobox', { name: 'Well-known image' }).inputValue()).resolves.toBe(debian.name);
    const status = form.locator('.published-status');
    await expect
      .poll(() => status.innerText(), { timeout: 15_000 })
      .toContain(`${debian.checksumsUrl} lists ${debian.url.slice(published.length)} with sha512 ${sha512(disk)}`);
    await expect(form.getByRole('textbox', { name: 'Name' }).inputValue()).resolves.toBe('debian-12');
    await expect(form.getByRole('textbox', { name: 'URL' }).inputValue()).resolves.toBe(debian.url);
    await form.scrollIntoViewIfNeeded();
    await p.screenshot({ path: join(SHOTS, 'image-add-debian.png') });
    publishScreenshot(join(SHOTS, 'image-add-debian.png'), join(DOCS_SHOTS, 'image-add-debian.png'));
    // Click two: Save.
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached', timeout: 60_000 });
    // Added: its quick-add button is gone, the others stay.
    await expect.poll(() => quick.getByRole('button', { name: `Add ${debian.title}` }).count()).toBe(0);
    await expect(quick.getByRole('button').count()).resolves.toBe(KNOWN_IMAGES.length - 1);
    // What the backend saw is the stand-in's address; it downloaded it once and stored its SHA-256.
    expect(onDisk().kvm!.images!['debian-12']).toEqual({
      url: `${local}${debian.url.slice(published.length)}`,
      sha256: sha256(disk),
      format: 'qcow2',
    });
    expect(server.requestsFor(`/bookworm/${debian.url.slice(published.length)}`)).toHaveLength(1);
    await p.close();
  });

  it('Ubuntu layout: the SHA-256 fills the field, said to be not verified (no signature published), and Save stores it without a download', async () => {
    const form = await openForm('noble', server.url('/ubuntu/noble.img'));
    const status = form.locator('.published-status');
    await expect
      .poll(() => status.innerText(), { timeout: 15_000 })
      .toContain(`lists noble.img with sha256 ${sha256(disk)}`);
    await expect(status.innerText()).resolves.toContain(
      'Signature not verified: no signature published beside the checksum file (looked for SHA256SUMS.gpg, SHA256SUMS.sign)',
    );
    await expect(form.getByRole('textbox', { name: 'sha256' }).inputValue()).resolves.toBe(sha256(disk));
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    expect(onDisk().kvm!.images!.noble).toEqual({
      url: server.url('/ubuntu/noble.img'),
      sha256: sha256(disk),
      format: 'qcow2',
    });
    expect(server.requestsFor('/ubuntu/noble.img')).toEqual([]);
  });

  it('a signed checksum file with its key in the data directory\'s keyrings: "Signature verified"; changed after signing: BAD, nothing filled in or saved', async (ctx) => {
    const missing = await gpgMissing();
    if (missing) skipBecause(ctx, missing);
    const key = await TestSigningKey.generate('Browser Test Publisher <publisher@example.invalid>');
    try {
      const sums = Buffer.from(`${sha256(disk)} *signed.img\n`);
      server.files.set('/signed/SHA256SUMS', bufferFile(sums));
      server.files.set('/signed/SHA256SUMS.gpg', bufferFile(await key.detachSign(sums, false)));
      mkdirSync(join(app.home, 'keyrings'), { recursive: true });
      await key.exportKeyring(join(app.home, 'keyrings', 'publisher.gpg'));
      const form = await openForm('signed', server.url('/signed/signed.img'));
      const status = form.locator('.published-status');
      await expect
        .poll(() => status.innerText(), { timeout: 15_000 })
        .toContain(`lists signed.img with sha256 ${sha256(disk)}`);
      await expect(status.innerText()).resolves.toContain(
        `Signature verified: ${server.url('/signed/SHA256SUMS.gpg')} is a good signature by key ${key.fingerprint} (Browser Test Publisher <publisher@example.invalid>).`,
      );
      await expect(form.getByRole('textbox', { name: 'sha256' }).inputValue()).resolves.toBe(sha256(disk));
      // The file changes on the server; reading it again refuses it, and the digest read before is taken back.
      server.files.set(
        '/signed/SHA256SUMS',
        bufferFile(Buffer.from(`${sha256(Buffer.from('tampered'))} *signed.img\n`)),
      );
      const before = readFileSync(join(app.home, 'config.yaml'), 'utf8');
      await form.getByRole('button', { name: 'Read checksum file' }).click();
      const alert = form.getByRole('alert').filter({ hasText: 'BAD signature' });
      await expect
        .poll(() => alert.innerText(), { timeout: 15_000 })
        .toMatch(
          /BAD signature: the checksum file was changed after it was signed .*its digest is not used, nothing was saved$/,
        );
      await expect(form.getByRole('textbox', { name: 'sha256' }).inputValue()).resolves.toBe('');
      expect(readFileSync(join(app.home, 'config.yaml'), 'utf8')).toBe(before);
      await form.getByRole('button', { name: 'Cancel' }).click();
    } finally {
      await key.close();
    }
  });

  it('Debian layout (SHA-512 only): Save downloads once, checks it, stores the SHA-256; the image is then cached', async () => {
    const form = await openForm('deb', server.url('/debian/disk.qcow2'));
    const status = form.locator('.published-status');
    await expect
      .poll(() => status.innerText(), { timeout: 15_000 })
      .toContain(`lists disk.qcow2 with sha512 ${sha512(disk)}`);
    await expect(status.innerText()).resolves.toContain('Only a SHA-512 is published: Save downloads the image once');
    await expect(form.getByRole('textbox', { name: 'sha256' }).inputValue()).resolves.toBe('');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached', timeout: 60_000 });
    expect(onDisk().kvm!.images!.deb).toEqual({
      url: server.url('/debian/disk.qcow2'),
      sha256: sha256(disk),
      format: 'qcow2',
    });
    expect(server.requestsFor('/debian/disk.qcow2')).toHaveLength(1);
    const row = images().getByRole('row', { name: /^deb\b/ });
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('cached, verified');
  });

  it('a SHA-512 mismatch saves nothing and says which digests differ', async () => {
    const before = readFileSync(join(app.home, 'config.yaml'), 'utf8');
    const form = await openForm('bad', server.url('/bad/disk.qcow2'));
    await expect
      .poll(() => form.locator('.published-status').innerText(), { timeout: 15_000 })
      .toContain('with sha512');
    await form.getByRole('button', { name: 'Save' }).click();
    const alert = form.getByRole('alert').filter({ hasText: 'Not saved' });
    await alert.waitFor({ timeout: 60_000 });
    await expect(alert.innerText()).resolves.toMatch(
      new RegExp(`has sha512 ${sha512(disk)} but [0-9a-f]{128} was expected .*the download was deleted`),
    );
    expect(readFileSync(join(app.home, 'config.yaml'), 'utf8')).toBe(before);
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('a checksum file that is not beside the image (BSD layout), named in the Checksum file field: the digest is found, shown and saved', async () => {
    const sumsPath = '/published-sums/Cloud-42-x86_64-CHECKSUM';
    server.files.set('/mirror/images/cloud.qcow2', bufferFile(disk));
    server.files.set(
      sumsPath,
      bufferFile(
        Buffer.from(
          `# Cloud 42\nSHA256 (other.qcow2) = ${sha256(Buffer.from('z'))}\nSHA256 (cloud.qcow2) = ${sha256(disk)}\n`,
        ),
      ),
    );
    await images().getByRole('button', { name: 'Add image' }).click();
    const form = images().getByRole('group', { name: 'New image' });
    await form.getByRole('textbox', { name: 'Name' }).fill('cloud');
    await form.getByRole('textbox', { name: 'URL' }).fill(server.url('/mirror/images/cloud.qcow2'));
    const field = form.getByRole('textbox', { name: 'Checksum file', exact: true });
    await expect(field.getAttribute('placeholder')).resolves.toMatch(/^Optional: .*beside the image URL/);
    await field.fill(server.url(sumsPath));
    await form.getByRole('button', { name: 'Read checksum file' }).click();
    const status = form.locator('.published-status');
    await expect
      .poll(() => status.innerText(), { timeout: 15_000 })
      .toContain(`${server.url(sumsPath)} lists cloud.qcow2 with sha256 ${sha256(disk)}`);
    await expect(form.getByRole('textbox', { name: 'sha256' }).inputValue()).resolves.toBe(sha256(disk));
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    expect(onDisk().kvm!.images!.cloud).toEqual({
      url: server.url('/mirror/images/cloud.qcow2'),
      sha256: sha256(disk),
      format: 'qcow2',
    });
    // Only the named file was read: nothing looked for beside the image, nothing downloaded.
    expect(server.requestsFor(sumsPath)).toHaveLength(1);
    expect(server.requestsFor('/mirror/images/SHA256SUMS')).toEqual([]);
    expect(server.requestsFor('/mirror/images/cloud.qcow2')).toEqual([]);
  });

  it('a checksum file URL that is wrong: said under the field, before reading (a scheme) and after (not there)', async () => {
    const form = await openForm('wrong', server.url('/mirror/images/cloud.qcow2'));
    // Read beside the URL first: nothing there, said in the status, not under the field.
    await form.getByRole('alert').filter({ hasText: 'No digest found' }).waitFor({ timeout: 15_000 });
    const field = form.getByRole('textbox', { name: 'Checksum file', exact: true });
    await expect(field.getAttribute('aria-invalid')).resolves.toBeNull();
    await field.fill('ftp://127.0.0.1/SUMS');
    const error = form.locator('.field-error', { hasText: 'ftp' });
    await expect(error.innerText()).resolves.toBe('the scheme ftp is not supported (use https, http or file)');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(field.getAttribute('aria-describedby')).resolves.toBe(await error.getAttribute('id'));
    await expect(form.getByRole('button', { name: 'Read checksum file' }).isDisabled()).resolves.toBe(true);
    await field.fill(server.url('/published-sums/missing-CHECKSUM'));
    await field.press('Enter');
    const alert = form.getByRole('alert').filter({ hasText: 'No digest found' });
    await expect
      .poll(() => alert.innerText(), { timeout: 15_000 })
      .toBe(
        `No digest found: there is no checksum file at ${server.url('/published-sums/missing-CHECKSUM')} (HTTP 404)`,
      );
    await expect(alert.getAttribute('id')).resolves.toBe(await field.getAttribute('aria-describedby'));
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('a URL with no checksum file beside it: the files tried, in one message', async () => {
    const form = await openForm('none', server.url('/none/x.img'));
    const alert = form.getByRole('alert').filter({ hasText: 'No digest found' });
    await alert.waitFor({ timeout: 15_000 });
    await expect(alert.innerText()).resolves.toContain(
      `no checksum file beside ${server.url('/none/x.img')} lists x.img (SHA256SUMS: not found;`,
    );
    await form.getByRole('button', { name: 'Cancel' }).click();
  });
});
