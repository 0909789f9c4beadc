/**
 * The inspector in Debian's Chromium, through the real `egress-desk serve`, against the
 * real libvirtd (qemu:///system) of the test environment: a proxy launched from a tiny
 * base image (no guest boots, so it never gets an address), opened from the table by
 * click, by keyboard and by double-click; its metadata fields compared with the domain
 * XML libvirt itself returns; the Domain XML tab's highlighted metadata region; the Seed
 * tab's masked password (the real one, from the credentials file, never in the page);
 * Copy URL disabled with its reason; Escape back to the table; the open proxy remembered
 * across a reload; and the inspector saying so when the proxy is deleted under it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient, findDomainByName, findVolume } from '../../electron/libvirt/index.js';
import { parseInstanceMetadata } from '../../electron/services/provider/kvm/xml/metadata.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import { MASK } from '../../shared/proxies.js';
import { removeProxy, systemClient, testPool } from '../support/libvirt.js';
import { testEnv } from '../support/env.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp } from './app-page.js';
import { publishScreenshot } from './screenshots.js';
import { proxiesTable, proxyRow } from './page-objects.js';
import { openSecondPage } from './second-page.js';
import { tinyConfig } from './tiny-config.js';

const env = testEnv();
const shots = SHOTS;
const docs = DOCS_SHOTS;
const NAME = 'egtest-insp-1';

let home: string;
let sha256: string;
/** Whether this file uploaded the tiny base volume (then it removes it; else another test's is left alone). */
let ownBase = false;
let app: AppPage;
let page: Page;
let client: LibvirtClient | undefined;

/**
 * Filters the table down to this file's proxy: other test files' proxies may share the
 * libvirtd, and the table renders only a window of its rows.
 */
const showOnly = (p: Page) => p.getByRole('searchbox', { name: 'Filter proxies' }).fill(NAME);
const inspector = (p: Page) => p.getByRole('region', { name: `Inspector for ${NAME}` });
const tab = (p: Page, name: string) => inspector(p).getByRole('tablist').getByRole('tab', { name, exact: true });
/** A field's value: the `dd` labelled (aria-labelledby) by the `dt` whose text is `label`. */
async function field(scope: Locator, label: string): Promise<Locator> {
  const term = scope.getByRole('term').and(scope.getByText(label, { exact: true }));
  await term.waitFor({ timeout: 30_000 });
  const id = await term.getAttribute('id');
  expect(id, `the id of the label ${label}`).toBeTruthy();
  return scope.locator(`dd[aria-labelledby="${id}"]`);
}

async function libvirtXml(): Promise<string> {
  client ??= await systemClient();
  const dom = await findDomainByName(client, instanceId(NAME));
  if (!dom) throw new Error(`libvirt has no domain ${instanceId(NAME)}`);
  return client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 });
}

/** The code lines of a highlighted block, as text (the line numbers and region label left out). */
const codeText = (block: Locator) =>
  block.locator('.code-text').evaluateAll((els) => els.map((e) => e.textContent ?? '').join('\n'));

async function cleanUp(): Promise<void> {
  client ??= await systemClient();
  await removeProxy(client, NAME, ownBase ? [baseVolumeName(sha256, 'qcow2')] : []);
}

beforeAll(async () => {
  app = await openApp({
    prefix: 'egress-inspector-',
    clipboard: true,
    config: tinyConfig(env, (digest) => (sha256 = digest)),
  });
  ({ home, page } = app);
  await cleanUp();
  client ??= await systemClient();
  ownBase = (await findVolume(client, await testPool(client), baseVolumeName(sha256, 'qcow2'))) === null;
  // Loaded: the table, or the empty state (other test files' proxies may be on the same libvirtd).
  await page
    .getByRole('heading', { name: 'Launch your first proxy' })
    .or(proxiesTable(page))
    .waitFor({ timeout: 60_000 });
});

afterAll(async () => {
  await app?.close();
  if (sha256) await cleanUp().catch(() => undefined);
  await client?.close();
});

describe('the inspector: against the real libvirtd', () => {
  it('launches a proxy (through the page’s bridge) and lists it', async () => {
    const launched = (await page.evaluate(
      `window.egress.invoke('proxies:launch', ${JSON.stringify({ name: NAME, host: 'local' })})`,
    )) as { ok: boolean };
    expect(launched.ok).toBe(true);
    await showOnly(page);
    const row = proxyRow(page, NAME);
    await row.waitFor({ timeout: 120_000 });
    await row.getByText('running', { exact: true }).waitFor({ timeout: 60_000 });
  }, 240_000);

  it('opens by its Inspect button, with the metadata fields libvirt has', async () => {
    await proxiesTable(page)
      .getByRole('button', { name: `Inspect ${NAME}` })
      .click();
    const view = inspector(page);
    await view.waitFor();
    await expect(tab(page, 'Overview').getAttribute('aria-selected')).resolves.toBe('true');
    const overview = view.getByRole('tabpanel', { name: 'Overview' });
    await (await field(overview, 'Name')).waitFor({ timeout: 30_000 });
    const m = parseInstanceMetadata(await libvirtXml());
    expect(m).toBeDefined();
    const expected: Record<string, string> = {
      Name: m!.name,
      Host: m!.host,
      Owner: m!.owner,
      'Machine type': m!.machineType,
      Image: m!.image.name,
      'Image sha256': m!.image.sha256,
      Port: String(m!.port),
      'Spec hash': m!.specHash,
      'Format version': String(m!.formatVersion),
      'Extra elements': 'none',
      State: 'running',
      Domain: instanceId(NAME),
    };
    for (const [label, value] of Object.entries(expected))
      expect(await (await field(overview, label)).innerText(), label).toBe(value);
    expect(await (await field(overview, 'Created')).innerText()).toContain(m!.createdAt);
    expect(m).toMatchObject({ name: NAME, host: 'local', machineType: 'tiny', image: { name: 'tiny', sha256 } });
    await page.screenshot({ path: join(shots, 'inspector-overview-light.png') });
    publishScreenshot(join(shots, 'inspector-overview-light.png'), join(docs, 'inspector-overview.png'));
  });

  it('disables Copy URL while there is no address, and says why', async () => {
    const overview = inspector(page).getByRole('tabpanel', { name: 'Overview' });
    const copy = overview.getByRole('button', { name: 'Copy URL' });
    await expect(copy.isDisabled()).resolves.toBe(true);
    const reasonId = await copy.getAttribute('aria-describedby');
    expect(reasonId).toBeTruthy();
    expect(await page.locator(`[id="${reasonId}"]`).innerText()).toMatch(/No address yet/);
    // The sources that found nothing say why (the tiny guest runs no agent and takes no lease).
    const problems = overview.getByRole('list', { name: 'Address source problems' });
    await expect(
      problems
        .getByRole('listitem')
        .filter({ hasText: /^agent\b/ })
        .count(),
    ).resolves.toBe(1);
    await expect(overview.getByText('No address found yet.').count()).resolves.toBe(1);
  });

  it('shows the domain XML highlighted, with the metadata region marked, and copies it', async () => {
    await tab(page, 'Domain XML').click();
    const panel = inspector(page).getByRole('tabpanel', { name: 'Domain XML' });
    const block = panel.getByLabel(`Domain XML of ${NAME}`);
    await block.waitFor();
    const xml = await libvirtXml();
    // Every line, in order, with a line number each, and tokens highlighted.
    expect(await codeText(block)).toBe(xml.replace(/\n$/, ''));
    const numbers = await block.locator('.code-ln').allInnerTexts();
    expect(numbers.slice(0, 3)).toEqual(['1', '2', '3']);
    expect(numbers).toHaveLength(xml.replace(/\n$/, '').split('\n').length);
    expect(await block.locator('.hljs-tag').count()).toBeGreaterThan(20);
    // The metadata region is exactly libvirt's <metadata> element, visibly set apart and labelled.
    const region = panel.getByRole('region', { name: 'Egress Desk metadata' });
    const text = await codeText(region);
    const start = xml.lastIndexOf('\n', xml.indexOf('<metadata>')) + 1;
    const end = xml.indexOf('</metadata>') + '</metadata>'.length;
    expect(text).toBe(xml.slice(start, end));
    expect(text).toContain('urn:egress-proxies:kvm:v1');
    await region.getByText('Egress Desk metadata', { exact: true }).waitFor();
    const [regionBg, blockBg] = await Promise.all([
      region.evaluate((el) => getComputedStyle(el).backgroundColor),
      block.evaluate((el) => getComputedStyle(el).backgroundColor),
    ]);
    expect(regionBg).not.toBe(blockBg);
    await panel.getByRole('button', { name: 'Copy XML' }).click();
    await page.getByRole('status', { name: 'Notifications' }).getByText(`Copied the domain XML of ${NAME}.`).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(xml);
    await page.screenshot({ path: join(shots, 'inspector-xml-light.png') });
    publishScreenshot(join(shots, 'inspector-xml-light.png'), join(docs, 'inspector-xml.png'));
  });

  it('shows the seed with the password masked, never the real one', async () => {
    await tab(page, 'Seed').click();
    const panel = inspector(page).getByRole('tabpanel', { name: 'Seed' });
    await panel.getByText(/^Credentials are masked/).waitFor();
    for (const file of ['user-data', 'meta-data', 'vendor-data'])
      await panel
        .getByRole('region', { name: file, exact: true })
        .getByLabel(`Contents of ${file}`)
        .locator('.code-line')
        .first()
        .waitFor();
    const userData = await codeText(panel.getByRole('region', { name: 'user-data' }).locator('pre'));
    expect(userData).toMatch(/^#cloud-config/);
    expect(userData).toContain(MASK);
    expect(await codeText(panel.getByRole('region', { name: 'meta-data' }).locator('pre'))).toContain(instanceId(NAME));
    const credentialsFile = join(home, 'credentials.json');
    expect(existsSync(credentialsFile)).toBe(true);
    const { password } = (
      JSON.parse(readFileSync(credentialsFile, 'utf8')) as { proxies: Record<string, { password: string }> }
    ).proxies[NAME]!;
    expect(password.length).toBeGreaterThan(8);
    // Nowhere in the page, on any tab, and not in what the inspector was sent.
    for (const name of ['Overview', 'Traffic', 'Domain XML', 'Seed']) {
      await tab(page, name).click();
      await inspector(page).getByRole('tabpanel', { name }).waitFor();
      expect(await page.content()).not.toContain(password);
    }
    const inspection = JSON.stringify(
      await page.evaluate(`window.egress.invoke('proxies:inspect', ${JSON.stringify({ name: NAME })})`),
    );
    expect(inspection).toContain(MASK);
    expect(inspection).not.toContain(password);
    await tab(page, 'Seed').click();
    await page.screenshot({ path: join(shots, 'inspector-seed-light.png') });
  });

  it('moves between tabs with the arrow keys, and remembers the tab over a reload', async () => {
    await tab(page, 'Overview').click();
    await page.keyboard.press('ArrowRight');
    await expect(tab(page, 'Traffic').getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('ArrowRight');
    await expect(tab(page, 'Domain XML').getAttribute('aria-selected')).resolves.toBe('true');
    await expect(tab(page, 'Domain XML').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('End');
    await expect(tab(page, 'Console').getAttribute('aria-selected')).resolves.toBe('true');
    // The console tab offers to connect; it does not connect by itself.
    await inspector(page)
      .getByRole('button', { name: `Connect to the console of ${NAME}` })
      .waitFor();
    await page.keyboard.press('ArrowRight');
    await expect(tab(page, 'Overview').getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('ArrowLeft');
    await expect(tab(page, 'Console').getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('ArrowLeft');
    await expect(tab(page, 'Seed').getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('ArrowLeft');
    await page.reload();
    await inspector(page)
      .getByRole('tabpanel', { name: 'Domain XML' })
      .getByRole('region', { name: 'Egress Desk metadata' })
      .waitFor({ timeout: 30_000 });
  });

  it('goes back to the table with Escape, the row in view and its Inspect button focused', async () => {
    // After the reload the filter is empty: the row is brought into view however many proxies there are.
    await page.keyboard.press('Escape');
    await inspector(page).waitFor({ state: 'detached' });
    const inspect = proxiesTable(page).getByRole('button', { name: `Inspect ${NAME}` });
    await inspect.waitFor({ timeout: 30_000 });
    await expect.poll(() => inspect.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it('keeps the table’s filter while the inspector is open', async () => {
    await showOnly(page);
    await proxiesTable(page)
      .getByRole('button', { name: `Inspect ${NAME}` })
      .click();
    await inspector(page).waitFor();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('searchbox', { name: 'Filter proxies' }).inputValue()).resolves.toBe(NAME);
  });

  it('opens by keyboard (Enter on the focused row) and by double-click, and closes with its buttons', async () => {
    const row = proxyRow(page, NAME);
    await row.focus();
    await page.keyboard.press('Enter');
    await inspector(page).waitFor();
    await inspector(page).getByRole('button', { name: 'Back to proxies' }).click();
    await inspector(page).waitFor({ state: 'detached' });
    // Enter on the row's own buttons does what the button says, not open the inspector.
    await row.getByRole('checkbox', { name: `Select ${NAME}` }).focus();
    await page.keyboard.press('Enter');
    await expect(inspector(page).count()).resolves.toBe(0);
    await row
      .getByRole('cell')
      .filter({ hasText: /^local$/ })
      .dblclick();
    await inspector(page).waitFor();
    await inspector(page).getByRole('button', { name: 'Close inspector' }).click();
    await proxiesTable(page).waitFor();
  });

  it('is the same in dark, and opens where it was left', async () => {
    await proxiesTable(page)
      .getByRole('button', { name: `Inspect ${NAME}` })
      .click();
    await tab(page, 'Domain XML').click();
    const { context, page: p } = await openSecondPage(app, 'dark');
    const region = inspector(p).getByRole('region', { name: 'Egress Desk metadata' });
    await region.waitFor({ timeout: 30_000 });
    expect(await p.evaluate('getComputedStyle(document.body).backgroundColor')).not.toBe('rgb(255, 255, 255)');
    const [darkTag, lightTag] = await Promise.all([
      p
        .locator('.hljs-name')
        .first()
        .evaluate((el) => getComputedStyle(el).color),
      page
        .locator('.hljs-name')
        .first()
        .evaluate((el) => getComputedStyle(el).color),
    ]);
    expect(darkTag).not.toBe(lightTag);
    await p.screenshot({ path: join(shots, 'inspector-xml-dark.png') });
    publishScreenshot(join(shots, 'inspector-xml-dark.png'), join(docs, 'inspector-dark.png'));
    await context.close();
  });

  it('says so when the proxy is deleted while it is open', async () => {
    await tab(page, 'Overview').click();
    const deleted = (await page.evaluate(
      `window.egress.invoke('proxies:delete', ${JSON.stringify({ name: NAME, confirm: true })})`,
    )) as { ok: boolean };
    expect(deleted.ok).toBe(true);
    await inspector(page).getByRole('alert').getByText(`${NAME} no longer exists.`).waitFor({ timeout: 90_000 });
    await expect(
      inspector(page)
        .getByRole('tabpanel', { name: 'Overview' })
        .getByRole('button', { name: 'Copy URL' })
        .isDisabled(),
    ).resolves.toBe(true);
    await inspector(page).getByRole('alert').getByRole('button', { name: 'Back to proxies' }).click();
    await inspector(page).waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Launch your first proxy' }).or(proxiesTable(page)).waitFor();
    await expect.poll(() => page.getByRole('row', { name: new RegExp(NAME) }).count(), { timeout: 60_000 }).toBe(0);
    client ??= await systemClient();
    expect(await findDomainByName(client, instanceId(NAME))).toBeNull();
  });

  it('logs no CSP violation or page error', () => {
    expect(app.errors).toEqual([]);
  });
});
