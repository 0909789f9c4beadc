/**
 * The Images & machine types view in Debian's Chromium, through the real `egress-desk
 * serve`, against the real libvirtd of the test environment: a machine type added (invalid
 * first: the shared check's messages under the fields, Save disabled with the reason),
 * edited (Escape cancels, Save saves), made the default, refused removal while it is the
 * default, then removed through the confirmation; an image added from a file:// image made
 * for the test with a wrong sha256 (the pull fails with the checksum message), fixed,
 * pulled (progress bar, then cached and verified), with its per-host presence: the local
 * host answers "not uploaded", a host that cannot connect is "unknown". After every step
 * the config file on disk is read back. Nothing is created in libvirt.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../electron/services/config/document.js';
import type { ProviderConfig } from '../../shared/config.js';
import { testEnv } from '../support/env.js';
import { type AppPage, DOCS_SHOTS, SHOTS, localHost, openApp, testConfig } from './app-page.js';
import { publishScreenshot } from './screenshots.js';
import { nav } from './page-objects.js';
import { openSecondPage } from './second-page.js';

const env = testEnv();
const shots = SHOTS;
const docs = DOCS_SHOTS;
const OFFLINE = 'egtest-catalog-off';
const WRONG_SHA = '0'.repeat(64);

let home: string;
let image: { path: string; sha256: string };
let app: AppPage;
let page: Page;

const types = () => page.getByRole('region', { name: 'Machine types' });
const images = () => page.getByRole('region', { name: 'Images' });
const onDisk = (): ProviderConfig =>
  parseConfigText(readFileSync(join(home, 'config.yaml'), 'utf8'), 'config.yaml') as ProviderConfig;

/**
 * A qcow2 image made for this test, fully allocated so that its copy takes long enough
 * for the progress bar to be seen (a sparse one is copied in a blink).
 */
function pullableImage(dir: string): { path: string; sha256: string } {
  const path = join(dir, 'egtest-catalog.qcow2');
  execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', '-o', 'preallocation=full', path, '160M']);
  return { path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
}

beforeAll(async () => {
  app = await openApp({
    prefix: 'egress-catalog-',
    clipboard: true,
    config: (dir) => {
      image = pullableImage(dir);
      return testConfig(env, {
        // A host whose libvirt socket does not exist: never connected, so its presence is unknown.
        hosts: [localHost(env), `{ name: ${OFFLINE}, address: local, socketPath: /nonexistent/${OFFLINE}.sock }`],
        defaults: '{ machineType: tiny }',
      });
    },
  });
  ({ home, page } = app);
  await nav(page, 'Images & machine types').click({ timeout: 30_000 });
  await types()
    .getByRole('row', { name: /^tiny\b/ })
    .waitFor();
});

afterAll(async () => {
  await app?.close();
});

describe('browser: machine types, edited in place', () => {
  it('shows the messages of invalid input under the fields and keeps Save disabled, with the reason', async () => {
    const before = readFileSync(join(home, 'config.yaml'), 'utf8');
    await types().getByRole('button', { name: 'Add machine type' }).click();
    const form = types().getByRole('group', { name: 'New machine type' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Medium One');
    await form.getByRole('textbox', { name: 'vCPUs' }).fill('0');
    await form.getByRole('textbox', { name: 'Memory (MiB)' }).fill('lots');
    await expect(form.getByRole('textbox', { name: 'Name' }).getAttribute('aria-invalid')).resolves.toBe('true');
    const errors = await form.locator('.field-error').allInnerTexts();
    expect(errors).toEqual([
      'kvm.machineTypes["Medium One"]: name must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit',
      'kvm.machineTypes["Medium One"].vcpus: must be at least 1 (got 0)',
      'kvm.machineTypes["Medium One"].memoryMiB: expected a number, got the text "lots"',
    ]);
    const save = form.getByRole('button', { name: 'Save' });
    await expect(save.isDisabled()).resolves.toBe(true);
    await expect(form.locator('.entry-reason').innerText()).resolves.toMatch(
      /^Cannot save yet: kvm\.machineTypes\["Medium One"\]: name must be .*\(and 2 more\)$/,
    );
    // Enter does not save an invalid entry.
    await form.getByRole('textbox', { name: 'vCPUs' }).press('Enter');
    await page.screenshot({ path: join(shots, 'catalog-edit.png') });
    publishScreenshot(join(shots, 'catalog-edit.png'), join(docs, 'catalog-edit.png'));
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(before);
  });

  it('saves it once valid (Enter), and the file has it', async () => {
    const form = types().getByRole('group', { name: 'New machine type' });
    await form.getByRole('textbox', { name: 'Name' }).fill('medium');
    await form.getByRole('textbox', { name: 'vCPUs' }).fill('2');
    await form.getByRole('textbox', { name: 'Memory (MiB)' }).fill('1024');
    await form.getByRole('textbox', { name: 'Disk (GiB)' }).fill('5');
    await expect(form.locator('.field-error').count()).resolves.toBe(0);
    await expect(form.getByRole('button', { name: 'Save' }).isEnabled()).resolves.toBe(true);
    await form.getByRole('textbox', { name: 'Disk (GiB)' }).press('Enter');
    await types()
      .getByRole('row', { name: /^medium\s+2\s+1024 MiB\s+5 GiB/ })
      .waitFor();
    expect(onDisk().kvm!.machineTypes).toEqual({
      tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 },
      medium: { vcpus: 2, memoryMiB: 1024, diskGiB: 5 },
    });
  });

  it('edits it: Escape cancels, Save saves', async () => {
    await types().getByRole('button', { name: 'Edit medium' }).click();
    let form = types().getByRole('group', { name: 'Edit machine type medium' });
    await form.getByRole('textbox', { name: 'vCPUs' }).fill('7');
    await form.getByRole('textbox', { name: 'vCPUs' }).press('Escape');
    await form.waitFor({ state: 'detached' });
    // The focus goes back to the row's Edit button, not to the page.
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Edit medium');
    expect(onDisk().kvm!.machineTypes.medium).toEqual({ vcpus: 2, memoryMiB: 1024, diskGiB: 5 });
    await types().getByRole('button', { name: 'Edit medium' }).click();
    form = types().getByRole('group', { name: 'Edit machine type medium' });
    await form.getByRole('textbox', { name: 'Memory (MiB)' }).fill('2048');
    await form.getByRole('button', { name: 'Save' }).click();
    await types()
      .getByRole('row', { name: /^medium\s+2\s+2048 MiB\s+5 GiB/ })
      .waitFor();
    expect(onDisk().kvm!.machineTypes.medium).toEqual({ vcpus: 2, memoryMiB: 2048, diskGiB: 5 });
  });

  it('makes it the default', async () => {
    await types().getByRole('button', { name: 'Make default: medium' }).click();
    await types()
      .getByRole('row', { name: /^medium\b/ })
      .locator('.default-badge')
      .waitFor();
    expect(onDisk().kvm!.defaults).toEqual({ machineType: 'medium' });
    await expect(types().getByRole('button', { name: 'Make default: medium' }).count()).resolves.toBe(0);
  });

  it('refuses to remove it while it is the default, with the message; removes it through the confirmation after', async () => {
    await types().getByRole('button', { name: 'Remove medium' }).click();
    let dialog = page.getByRole('dialog', { name: 'Remove the machine type medium?' });
    await dialog.waitFor();
    await expect(dialog.getByRole('alert', { name: 'Why it cannot be removed' }).innerText()).resolves.toContain(
      'kvm.defaults.machineType: "medium" is the default machine type: make another one the default first',
    );
    await expect(dialog.getByRole('button', { name: 'Remove' }).count()).resolves.toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(Object.keys(onDisk().kvm!.machineTypes)).toEqual(['tiny', 'medium']);

    await types().getByRole('button', { name: 'Make default: tiny' }).click();
    await types()
      .getByRole('row', { name: /^tiny\b/ })
      .locator('.default-badge')
      .waitFor();
    expect(onDisk().kvm!.defaults).toEqual({ machineType: 'tiny' });
    await types().getByRole('button', { name: 'Remove medium' }).click();
    dialog = page.getByRole('dialog', { name: 'Remove the machine type medium?' });
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await dialog.waitFor({ state: 'detached' });
    await types()
      .getByRole('row', { name: /^medium\b/ })
      .waitFor({ state: 'detached' });
    expect(Object.keys(onDisk().kvm!.machineTypes)).toEqual(['tiny']);
  });
});

describe('browser: an image, added, pulled and verified', () => {
  it('adds an image with a wrong sha256; its presence is known per host', async () => {
    await images().getByRole('button', { name: 'Add image' }).click();
    const form = images().getByRole('group', { name: 'New image' });
    await form.getByRole('textbox', { name: 'Name' }).fill('egtest-img');
    await form.getByRole('textbox', { name: 'URL' }).fill('ftp://nowhere/x');
    await expect(form.locator('.field-error').innerText()).resolves.toBe(
      'kvm.images.egtest-img.url: must be a URL with scheme https, http, file (got "ftp")',
    );
    await form.getByRole('textbox', { name: 'URL' }).fill(`file://${image.path}`);
    await form.getByRole('textbox', { name: 'sha256' }).fill(WRONG_SHA);
    await form.getByRole('button', { name: 'Save' }).click();
    const row = images().getByRole('row', { name: /^egtest-img\b/ });
    await row.waitFor();
    expect(onDisk().kvm!.images).toEqual({
      'egtest-img': { url: `file://${image.path}`, sha256: WRONG_SHA, format: 'qcow2' },
    });
    await expect(row.innerText()).resolves.toContain('not downloaded');
    const presence = row.getByRole('list', { name: 'On hosts' }).getByRole('listitem');
    // The local host connects on its own; the view asks again when it has.
    await expect
      .poll(() => presence.allInnerTexts(), { timeout: 30_000 })
      .toEqual(['local: not uploaded (plain) Bake', `${OFFLINE}: unknown`]);
    // Not baked there (no baked base on the host): Bake is offered for the connected host only.
    await expect(row.getByRole('button', { name: 'Bake egtest-img on local' }).isEnabled()).resolves.toBe(true);
    await expect(row.getByRole('button', { name: `Bake egtest-img on ${OFFLINE}` }).count()).resolves.toBe(0);
  });

  it('a pull with the wrong sha256 fails with the checksum message', async () => {
    const row = images().getByRole('row', { name: /^egtest-img\b/ });
    await row.getByRole('button', { name: 'Pull egtest-img' }).click();
    const outcome = row.locator('.pull-outcome');
    await outcome.waitFor({ timeout: 60_000 });
    await expect(outcome.innerText()).resolves.toContain(`has sha256 ${image.sha256} but ${WRONG_SHA} was expected`);
    await expect(row.innerText()).resolves.toContain('not downloaded');
  });

  it('after fixing the sha256, a pull shows its progress bar and ends cached and verified', async () => {
    await images().getByRole('button', { name: 'Edit egtest-img' }).click();
    const form = images().getByRole('group', { name: 'Edit image egtest-img' });
    await form.getByRole('textbox', { name: 'sha256' }).fill(image.sha256);
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    expect(onDisk().kvm!.images!['egtest-img']!.sha256).toBe(image.sha256);

    // Every progress bar the row shows, as it shows it (the copy may take under a second).
    await page.evaluate(`(() => {
      window.__bars = [];
      new MutationObserver(() => {
        for (const bar of document.querySelectorAll('[role="progressbar"][aria-label="Pulling egtest-img"]')) {
          window.__bars.push({ now: bar.getAttribute('aria-valuenow'), text: bar.getAttribute('aria-valuetext') });
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    const row = images().getByRole('row', { name: /^egtest-img\b/ });
    await row.getByRole('button', { name: 'Pull egtest-img' }).click();
    const bar = row.getByRole('progressbar', { name: 'Pulling egtest-img' });
    // The screenshot shows the bar when it is caught in time, else the outcome.
    const caught = await bar.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (caught) await page.screenshot({ path: join(shots, 'catalog-pull.png') });
    await row.getByText('Pulled, sha256 verified').waitFor({ timeout: 60_000 });
    const bars = (await page.evaluate('window.__bars')) as Array<{ now: string | null; text: string | null }>;
    expect(bars.length).toBeGreaterThan(0);
    const values = bars
      .map((b) => b.now)
      .filter((n): n is string => n !== null)
      .map(Number);
    expect(values.every((v) => v >= 0 && v <= 100)).toBe(true);
    expect(bars.some((b) => / of 160\.\d MiB$| of 16\d MiB$/.test(b.text ?? ''))).toBe(true);
    await expect.poll(() => row.innerText()).toContain('cached, verified');
    await expect(row.innerText()).resolves.toMatch(/\b16\d(\.\d)? MiB\b/);
    if (!caught) await page.screenshot({ path: join(shots, 'catalog-pull.png') });
    await page.screenshot({ path: join(shots, 'catalog-pull-done.png') });
    publishScreenshot(join(shots, 'catalog-pull.png'), join(docs, 'catalog-pull.png'));
    expect(onDisk().kvm!.images!['egtest-img']).toEqual({
      url: `file://${image.path}`,
      sha256: image.sha256,
      format: 'qcow2',
    });
  });

  it('shows the digest in full on hover and copies it', async () => {
    const row = images().getByRole('row', { name: /^egtest-img\b/ });
    await expect(row.locator('.digest code').getAttribute('title')).resolves.toBe(image.sha256);
    await row.getByRole('button', { name: 'Copy the sha256 of egtest-img' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(image.sha256);
  });

  it('reads in the dark theme too', async () => {
    const { context: dark, page: darkPage } = await openSecondPage(app, 'dark');
    await nav(darkPage, 'Images & machine types').click({ timeout: 30_000 });
    await darkPage
      .getByRole('region', { name: 'Images' })
      .getByRole('row', { name: /^egtest-img\b/ })
      .waitFor();
    await expect(darkPage.evaluate('getComputedStyle(document.body).backgroundColor')).resolves.not.toBe(
      'rgb(255, 255, 255)',
    );
    await darkPage.screenshot({ path: join(shots, 'catalog-dark.png') });
    await dark.close();
  });

  it('logs no CSP violation or page error', () => {
    expect(app.errors).toEqual([]);
  });
});
