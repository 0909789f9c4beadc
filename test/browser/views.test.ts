/**
 * The renderer's views in Debian's Chromium, through the real `egress-desk serve`, against
 * the real libvirtd of the test environment (test/env/up.sh): the Proxies view's empty
 * state, the local host connected, the Launch dialog (by click and by keyboard, with inline
 * validation), a real launch from a tiny base image (no guest needs to boot: the test
 * watches the steps, finds the proxy in the table and deletes it through the confirmation
 * dialog), the Tasks panel rebuilt after a reload, and the windowed table with 1,000 rows
 * (the WebSocket's proxies:list answer replaced by Playwright; the product has no test path).
 * Screenshots of every view, light and dark, go to test-results/screenshots/.
 */
import { publishScreenshot } from './screenshots.js';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { testEnv } from '../support/env.js';
import { fakeProxies, routeProxiesList } from '../../bench/browser/fake-listing.js';
import { openLaunchDialog } from '../../bench/browser/launch-dialog.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp } from './app-page.js';
import { nav, proxiesTable, proxyRow } from './page-objects.js';
import { openSecondPage } from './second-page.js';
import { tinyConfig } from './tiny-config.js';

const env = testEnv();
const shots = SHOTS;
const docs = DOCS_SHOTS;
const NAME = 'egtest-ui-1';

let sha256: string;
let app: AppPage;
let page: Page;
let client: LibvirtClient | undefined;

async function cleanUp(): Promise<void> {
  client ??= await systemClient();
  await removeProxy(client, NAME, [baseVolumeName(sha256, 'qcow2')]);
}

beforeAll(async () => {
  app = await openApp({
    prefix: 'egress-views-',
    clipboard: true,
    config: tinyConfig(env, (digest) => (sha256 = digest)),
    prepare: cleanUp,
  });
  ({ page } = app);
});

afterAll(async () => {
  await app?.close();
  if (sha256) await cleanUp().catch(() => undefined);
  await client?.close();
});

describe('browser views: against the real libvirtd', () => {
  it('opens on the Proxies view with an empty state that says what to do', async () => {
    await expect(nav(page, 'Proxies').getAttribute('aria-current')).resolves.toBe('page');
    await page.getByRole('heading', { name: 'Launch your first proxy' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Launch a proxy' }).waitFor();
    await page.screenshot({ path: join(shots, 'proxies-empty-light.png') });
  });

  it('shows the local host connected, with its facts', async () => {
    await nav(page, 'Hosts').click();
    const hosts = page.getByRole('region', { name: 'Hosts' });
    const row = hosts.getByRole('row', { name: /^local\b/ });
    await row.getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
    const card = hosts.getByRole('article', { name: 'local' });
    await card.getByText(/libvirt \d+\.\d+/).waitFor({ timeout: 30_000 });
    expect(await card.innerText()).toContain(env.EGRESS_TEST_POOL);
    expect(await card.innerText()).toContain(env.EGRESS_TEST_NETWORK);
    await page.screenshot({ path: join(shots, 'hosts-light.png') });
    publishScreenshot(join(shots, 'hosts-light.png'), join(docs, 'hosts.png'));
  });

  it('remembers the last view over a reload', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Hosts', exact: true }).waitFor();
    await expect(nav(page, 'Hosts').getAttribute('aria-current')).resolves.toBe('page');
  });

  it('opens the Launch dialog by clicking, validates the name inline, and closes with Escape', async () => {
    await nav(page, 'Proxies').click();
    const dialog = await openLaunchDialog(page);
    const name = dialog.getByRole('textbox', { name: 'Name' });
    await expect(name.evaluate((el) => el === el.ownerDocument.activeElement)).resolves.toBe(true);
    await name.fill('Bad_Name');
    await dialog.getByRole('alert').filter({ hasText: 'lowercase' }).waitFor();
    await expect(name.getAttribute('aria-invalid')).resolves.toBe('true');
    await page.screenshot({ path: join(shots, 'launch-invalid-light.png') });
    await name.fill('good-name');
    await expect(dialog.getByRole('alert').count()).resolves.toBe(0);
    await expect(name.getAttribute('aria-invalid')).resolves.toBeNull();
    // A bad CIDR is caught before anything is sent.
    await dialog.getByRole('textbox', { name: /Allowed clients/ }).fill('10.0.0.0/33');
    await dialog.getByRole('alert').filter({ hasText: 'Not an IP address or CIDR block: 10.0.0.0/33' }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('opens the Launch dialog with Ctrl+N, and every control has a name', async () => {
    await page.getByRole('heading', { name: 'Proxies', exact: true }).click();
    await page.keyboard.press('Control+n');
    const dialog = page.getByRole('dialog', { name: 'Launch a proxy' });
    await dialog.waitFor();
    for (const label of ['Name', 'Port']) await dialog.getByRole('textbox', { name: label, exact: true }).waitFor();
    for (const label of ['Host', 'Machine type', 'Image'])
      await dialog.getByRole('combobox', { name: label }).waitFor();
    await expect(dialog.getByRole('combobox', { name: 'Host' }).locator('option').allInnerTexts()).resolves.toEqual([
      'Automatic',
      'local (connected)',
    ]);
    // What Automatic would choose now, and why: the provider's own placement, asked without launching.
    await dialog
      .getByText(
        new RegExp(
          `^Automatic now: local: most free memory \\(\\d+\\.\\d GiB\\) with room in pool ${env.EGRESS_TEST_POOL}\\.$`,
        ),
      )
      .waitFor({ timeout: 30_000 });
    await expect(dialog.getByRole('combobox', { name: 'Host' }).getAttribute('aria-describedby')).resolves.toMatch(
      /-hint$/,
    );
    // Tab moves from the name through the fields in order: How many, then Host.
    await page.keyboard.press('Tab');
    await expect(
      dialog.getByRole('textbox', { name: 'How many' }).evaluate((el) => el === el.ownerDocument.activeElement),
    ).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await expect(
      page.evaluate("document.activeElement.id === document.querySelector('dialog select').id"),
    ).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // A plain "n" does the same (browsers keep Ctrl+N), but not while typing in a field.
    await page.keyboard.press('n');
    await dialog.waitFor();
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('n');
    await expect(dialog.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).resolves.toBe('n');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('launches a proxy on the real backend and shows its steps as they happen', async () => {
    await page.getByRole('button', { name: 'Launch a proxy' }).click();
    const form = page.getByRole('dialog', { name: 'Launch a proxy' });
    await form.getByRole('textbox', { name: 'Name' }).fill(NAME);
    await form.getByRole('combobox', { name: 'Host' }).selectOption('local');
    await form.getByRole('textbox', { name: /Allowed clients/ }).fill('192.168.150.0/24');
    const clicked = Date.now();
    // Enter in a field submits the form.
    await form.getByRole('textbox', { name: 'Name' }).press('Enter');
    const progress = page.getByRole('dialog', { name: `Launching ${NAME}` });
    const steps = progress.getByRole('list', { name: 'Launch steps' });
    await steps.getByRole('listitem', { name: /Check the request: (running|done)/ }).waitFor({ timeout: 30_000 });
    console.log(`first step shown ${Date.now() - clicked} ms after Enter`);
    // No guest boots from the tiny image: the launch gets to the address wait and stays there.
    await steps.getByRole('listitem', { name: 'Boot the VM: done' }).waitFor({ timeout: 90_000 });
    for (const s of [
      'Choose a host',
      'Get the base image',
      'Upload the image to the host',
      'Create the disks',
      'Write the cloud-init seed',
      'Define the VM',
    ])
      await steps.getByRole('listitem', { name: `${s}: done` }).waitFor();
    await steps.getByRole('listitem', { name: 'Wait for an address: running' }).waitFor({ timeout: 30_000 });
    await progress.getByRole('button', { name: 'Cancel launch' }).waitFor();
    await page.screenshot({ path: join(shots, 'launch-progress-light.png') });
    await progress.getByRole('button', { name: /^Close/ }).click();
    await progress.waitFor({ state: 'detached' });
  });

  it('shows the proxy in the table', async () => {
    const row = proxyRow(page, NAME);
    await row.waitFor({ timeout: 60_000 });
    expect(await row.innerText()).toMatch(/running[\s\S]*local[\s\S]*tiny/);
    await page.screenshot({ path: join(shots, 'proxies-light.png') });
    publishScreenshot(join(shots, 'proxies-light.png'), join(docs, 'proxies.png'));
  });

  it('lists the launch in the Tasks panel, also after a reload', async () => {
    await nav(page, 'Tasks').click();
    const tasks = page.getByRole('list', { name: 'Tasks' });
    const item = tasks.getByRole('listitem', { name: `Launch ${NAME}` });
    await item.waitFor();
    await item.getByRole('button', { name: `Cancel Launch ${NAME}` }).waitFor();
    await item.getByRole('progressbar').waitFor();
    await page.reload();
    await page
      .getByRole('list', { name: 'Tasks' })
      .getByRole('listitem', { name: `Launch ${NAME}` })
      .waitFor({ timeout: 30_000 });
    expect(
      await page
        .getByRole('list', { name: 'Tasks' })
        .getByRole('listitem', { name: `Launch ${NAME}` })
        .innerText(),
    ).toMatch(/running/);
    await page.screenshot({ path: join(shots, 'tasks-light.png') });
  });

  it('deletes it through the confirmation dialog, and it is gone', async () => {
    await nav(page, 'Proxies').click();
    const table = proxiesTable(page);
    await table.getByRole('checkbox', { name: `Select ${NAME}` }).check();
    await page.getByRole('toolbar', { name: 'Proxy actions' }).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${NAME}?` });
    await confirm.waitFor();
    // Cancel has the focus: Escape closes without deleting.
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await expect(proxyRow(page, NAME).count()).resolves.toBe(1);
    await page.getByRole('toolbar', { name: 'Proxy actions' }).getByRole('button', { name: 'Delete' }).click();
    await page.screenshot({ path: join(shots, 'delete-confirm-light.png') });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Launch your first proxy' }).waitFor({ timeout: 60_000 });
    // Gone on the host too.
    client ??= await systemClient();
    const list = (await page.evaluate("window.egress.invoke('proxies:list')")) as {
      ok: boolean;
      value: { proxies: { name: string }[] };
    };
    expect(list.ok).toBe(true);
    expect(list.value.proxies.map((p) => p.name)).not.toContain(NAME);
  });

  it('ends the launch task honestly once its proxy is gone', async () => {
    await nav(page, 'Tasks').click();
    const item = page.getByRole('list', { name: 'Tasks' }).getByRole('listitem', { name: `Launch ${NAME}` });
    await item.getByText(/^(Failed|Cancelled)/).waitFor({ timeout: 60_000 });
    await page
      .getByRole('list', { name: 'Tasks' })
      .getByRole('listitem', { name: `Delete ${NAME}` })
      .getByText(/^Done/)
      .waitFor({ timeout: 60_000 });
  });

  it('renders only a window of 1,000 proxies, and scrolls to the last', async () => {
    // The backend's proxies:list answer is replaced on the wire (Playwright's WebSocket
    // routing): the renderer is the product build, unchanged.
    const { context, page: p } = await openSecondPage(app, 'dark', (fresh) =>
      routeProxiesList(fresh, fakeProxies(1000, sha256)),
    );
    await nav(p, 'Proxies').click();
    const table = proxiesTable(p);
    await table.getByRole('row', { name: /bulk-0000/ }).waitFor({ timeout: 30_000 });
    await expect(table.getAttribute('aria-rowcount')).resolves.toBe('1001');
    const rendered = await table.locator('.grid-body [role=row]').count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(60);
    await p.screenshot({ path: join(shots, 'proxies-1000-dark.png') });
    // Scrolling to the bottom brings the last row in, still with a small DOM.
    const t0 = Date.now();
    await table.locator('.grid-body').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await table.getByRole('row', { name: /bulk-0999/ }).waitFor();
    console.log(`scrolled 1,000 rows to the end in ${Date.now() - t0} ms`);
    expect(await table.locator('.grid-body [role=row]').count()).toBeLessThan(60);
    // Sorting by name descending puts the last first, and the sort is remembered.
    await table.getByRole('button', { name: 'Sort by name, ascending' }).click();
    await table.locator('.grid-body').evaluate((el) => el.scrollTo(0, 0));
    await table.getByRole('row', { name: /bulk-0999/ }).waitFor();
    await p.reload();
    await proxiesTable(p).getByRole('button', { name: 'Sort by name, descending' }).waitFor({ timeout: 30_000 });
    // The filter narrows the 1,000.
    await p.getByRole('searchbox', { name: 'Filter proxies' }).fill('bulk-012');
    await expect.poll(() => proxiesTable(p).locator('.grid-body [role=row]').count()).toBe(10);
    await context.close();
  });

  it('saves every view in dark', async () => {
    const { context, page: p } = await openSecondPage(app, 'dark');
    const background = await p.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).not.toBe('rgb(255, 255, 255)');
    for (const [view, file] of [
      ['Proxies', 'proxies-empty'],
      ['Hosts', 'hosts'],
      ['Images & machine types', 'catalog'],
      ['Config', 'config'],
      ['Tasks', 'tasks'],
    ] as const) {
      await nav(p, view).click();
      await p.getByRole('heading', { name: view, exact: true, level: 2 }).waitFor();
      if (view === 'Hosts')
        await p
          .getByRole('article', { name: 'local' })
          .getByText(/libvirt \d/)
          .waitFor({ timeout: 30_000 });
      await p.screenshot({ path: join(shots, `${file}-dark.png`) });
    }
    await context.close();
    for (const [view, file] of [
      ['Images & machine types', 'catalog'],
      ['Config', 'config'],
    ] as const) {
      await nav(page, view).click();
      await page.getByRole('heading', { name: view, exact: true, level: 2 }).waitFor();
      await page.screenshot({ path: join(shots, `${file}-light.png`) });
    }
  });

  it('logs no CSP violation or page error', () => {
    expect(app.errors).toEqual([]);
  });
});
