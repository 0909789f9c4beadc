/**
 * The Config view's export and import in Debian's Chromium, through the real
 * `egress-desk serve`: export as Operator YAML, preview an edited config (the diff lists
 * the added machine type), import it through the confirmation dialog and see it in the
 * Images & machine types view; invalid YAML shows its error and keeps Import disabled.
 * No libvirtd is needed: nothing here talks to a host.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppPage, openApp } from './app-page.js';
import { VIEWPORT } from './chromium.js';
import type { ServeProcess } from './serve-process.js';
import { nav as navTo } from './page-objects.js';

const HOST = 'cfgtest-host';
const SHA = 'a'.repeat(64);
const lines = (machineTypes: string[]) =>
  [
    'type: kvm',
    'kvm:',
    '  hosts:',
    `    - { name: ${HOST}, address: local }`,
    '  machineTypes:',
    ...machineTypes,
    '  images:',
    `    tiny: { url: "https://example.invalid/tiny.qcow2", sha256: ${SHA} }`,
    '  defaults: { machineType: tiny, image: tiny }',
    '',
  ].join('\n');
const ORIGINAL = lines(['    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }']);
const EDITED = lines(['    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }', '    big: { vcpus: 2, memoryMiB: 1024 }']);

let home: string;
let serve: ServeProcess;
let browser: Browser;
let page: Page;
let pageErrors: string[] = [];
let app: AppPage;

const nav = (name: string) => app.nav(name);

beforeAll(async () => {
  app = await openApp({ prefix: 'egress-config-view-', clipboard: true, config: () => ORIGINAL });
  ({ home, serve, browser, page } = app);
  pageErrors = app.errors;
});

afterAll(async () => {
  await app?.close();
});

describe('browser: the Config view exports and imports', () => {
  it('exports the config as Operator YAML, copies and downloads it', async () => {
    await nav('Config').click();
    await page.getByRole('heading', { name: 'Config', exact: true, level: 2 }).waitFor();
    const exportPanel = page.getByRole('region', { name: 'Export' });
    await exportPanel.getByRole('combobox', { name: 'Format' }).selectOption({ label: 'Operator YAML' });
    await exportPanel.getByRole('button', { name: 'Show export' }).click();
    const area = exportPanel.getByRole('textbox', { name: 'Exported config' });
    await area.waitFor();
    const text = await area.inputValue();
    expect(text).toContain('type: kvm');
    expect(text).toContain(HOST);
    await expect(area.getAttribute('readonly')).resolves.not.toBeNull();
    await exportPanel.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(text);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      exportPanel.getByRole('button', { name: 'Download' }).click(),
    ]);
    const saved = await download.path();
    expect(readFileSync(saved, 'utf8')).toBe(text);
  });

  it('re-imports its own export: the preview says nothing would change', async () => {
    const exportPanel = page.getByRole('region', { name: 'Export' });
    const text = await exportPanel.getByRole('textbox', { name: 'Exported config' }).inputValue();
    const importPanel = page.getByRole('region', { name: 'Import' });
    await importPanel.getByRole('textbox', { name: 'Config to import' }).fill(text);
    await importPanel.getByRole('button', { name: 'Preview import' }).click();
    await importPanel.getByText('Nothing would change: the text is the current config.').waitFor();
    await expect(importPanel.getByRole('button', { name: 'Import', exact: true }).isEnabled()).resolves.toBe(true);
  });

  it('previews an edited config with the added machine type, and imports it after confirmation', async () => {
    const importPanel = page.getByRole('region', { name: 'Import' });
    const importButton = importPanel.getByRole('button', { name: 'Import', exact: true });
    await importPanel.getByRole('textbox', { name: 'Config to import' }).fill(EDITED);
    await expect(importButton.isDisabled()).resolves.toBe(true);
    await importPanel.getByRole('button', { name: 'Preview import' }).click();
    const added = importPanel
      .getByRole('region', { name: 'Import changes' })
      .getByRole('list', { name: 'Machine types' })
      .getByRole('listitem');
    await added.first().waitFor();
    await expect(added.allInnerTexts()).resolves.toEqual([expect.stringMatching(/^added\s+big\b/)]);
    await expect(importButton.isEnabled()).resolves.toBe(true);
    await importButton.click();
    const confirm = page.getByRole('dialog', { name: 'Replace the config?' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Import' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page
      .getByRole('status', { name: 'Notifications' })
      .getByText(/^Imported the config/)
      .waitFor();
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toContain('big');
    await nav('Images & machine types').click();
    await page
      .getByRole('region', { name: 'Machine types' })
      .getByRole('row', { name: /^big\b/ })
      .waitFor();
  });

  it('shows why invalid YAML cannot be imported, and keeps Import disabled', async () => {
    await nav('Config').click();
    const importPanel = page.getByRole('region', { name: 'Import' });
    await importPanel.getByRole('textbox', { name: 'Config to import' }).fill('type: kvm\nkvm: [unclosed\n');
    await importPanel.getByRole('button', { name: 'Preview import' }).click();
    const problems = importPanel.getByRole('alert', { name: 'Import problems' });
    await problems.waitFor();
    const items = await problems.getByRole('listitem').allInnerTexts();
    expect(items.length).toBeGreaterThan(0);
    expect(items[0]!.trim().length).toBeGreaterThan(0);
    await expect(importPanel.getByRole('button', { name: 'Import', exact: true }).isDisabled()).resolves.toBe(true);
    await expect(
      importPanel.getByRole('textbox', { name: 'Config to import' }).getAttribute('aria-invalid'),
    ).resolves.toBe('true');
  });

  it('follows the desktop menu: File → Import previews the file, Launch opens the dialog, and export messages show', async () => {
    // The Electron shell sends app:command; serve mode has no native menu, so the events are
    // put on the wire here (Playwright's WebSocket routing) into the unchanged product build.
    const context = await browser.newContext({
      viewport: VIEWPORT,
      colorScheme: 'light',
      storageState: await page.context().storageState(),
    });
    const p = await context.newPage();
    p.on('pageerror', (err) => pageErrors.push(err.message));
    let push: ((payload: unknown) => void) | undefined;
    await p.routeWebSocket(/\/ws$/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => server.send(m));
      server.onMessage((m) => ws.send(m));
      push = (payload) => ws.send(JSON.stringify({ event: 'app:command', payload }));
    });
    await p.goto(`${serve.origin}/`);
    await navTo(p, 'Proxies').click();
    await expect.poll(() => push !== undefined).toBe(true);
    push!({
      command: 'import',
      fileName: '/home/me/edge.json',
      text: JSON.stringify({ type: 'kvm', kvm: { hosts: [{ name: 'edge-z', address: '192.0.2.7' }] } }),
      syntax: 'json',
    });
    const importPanel = p.getByRole('region', { name: 'Import' });
    await importPanel.getByText('/home/me/edge.json').waitFor();
    await importPanel
      .getByRole('region', { name: 'Import changes' })
      .getByRole('list', { name: 'Hosts' })
      .getByRole('listitem')
      .filter({ hasText: 'edge-z' })
      .waitFor();
    // Nothing is replaced before the person confirms.
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).not.toContain('edge-z');
    push!({ command: 'launch' });
    await p.getByRole('dialog', { name: 'Launch a proxy' }).waitFor();
    await p.keyboard.press('Escape');
    push!({ command: 'notify', kind: 'info', text: 'Exported to /home/me/proxy.pac' });
    await p.getByRole('status', { name: 'Notifications' }).getByText('Exported to /home/me/proxy.pac').waitFor();
    await context.close();
  });

  it('logs no CSP violation or page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
