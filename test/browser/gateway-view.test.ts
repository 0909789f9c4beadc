/**
 * The Gateway view (issue 40), in Debian's Chromium through the real `egress-desk serve`: off
 * at first; turned on (ports 0: any free ones) it says where it runs and writes settings.json;
 * Copy URL puts the first client's URL on the clipboard (the client made on demand), and that
 * URL works: a request through the gateway (no proxy in this fleet) gets the 502 with its
 * reason, a request without credentials the 407, and both appear in the Requests list, which
 * the filter narrows; Client settings gives a PAC file for its port and, with a session ID,
 * shell exports whose user name the gateway takes (a refused ID is shown under its field);
 * a port refused is shown under its field; axe finds nothing; turned off, it says so.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsPath } from '../../electron/services/settings/settings-file.js';
import { testEnv } from '../support/env.js';
import { getThroughProxy } from '../support/little-proxy.js';
import { type AppPage, openApp, testConfig } from './app-page.js';
import { audit } from './axe-audit.js';

const env = testEnv();
let app: AppPage;
let page: Page;

const form = () => page.getByRole('form', { name: 'Gateway settings' });
const box = (name: string) => form().getByRole('textbox', { name, exact: true });
const state = () => page.locator('.gateway-state');

beforeAll(async () => {
  app = await openApp({ prefix: 'egress-gateway-view-', config: () => testConfig(env), clipboard: true });
  page = app.page;
});

afterAll(async () => {
  await app?.close();
});

describe('browser: the Gateway view', () => {
  it('turns on, copies a working URL, lists the requests with a filter, refuses a bad port, turns off', async () => {
    await app.nav('Gateway').click();
    await form().waitFor({ timeout: 30_000 });
    await expect.poll(() => state().innerText()).toBe('Off');
    expect(await audit(page)).toEqual([]);

    await form().getByRole('checkbox', { name: 'Run the gateway' }).check();
    await box('HTTP port').fill('0');
    await box('SOCKS5 port').fill('0');
    await form().getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => state().innerText(), { timeout: 30_000 })
      .toMatch(/^Running on 127\.0\.0\.1:\d+ \(SOCKS5 on port \d+\)$/);
    const saved = JSON.parse(readFileSync(settingsPath(app.home), 'utf8')) as { gateway?: unknown };
    expect(saved.gateway).toEqual({ enabled: true, port: 0, bind: '127.0.0.1', socksPort: 0, logQuery: false });

    await page.getByRole('button', { name: 'Copy URL', exact: true }).click();
    // The copy is asynchronous (the URL is fetched first): wait for it to land.
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), { timeout: 15_000 }).toMatch(/^http:/);
    const url = new URL(await page.evaluate(() => navigator.clipboard.readText()));
    expect(url.username).toBe('desk');
    expect((await state().innerText()).includes(`:${url.port} `)).toBe(true);
    expect(
      await getThroughProxy(url.hostname, url.port, 'http://127.0.0.1:9/', `desk:${decodeURIComponent(url.password)}`),
    ).toEqual({
      status: 502,
      body: 'the fleet has no proxy the gateway can use\n',
    });
    expect((await getThroughProxy(url.hostname, url.port, 'http://127.0.0.1:9/')).status).toBe(407);

    const list = page.getByRole('table', { name: 'Requests, newest first' });
    const rows = list.locator('tbody').getByRole('row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    // Newest first: the 407 came last.
    expect(await rows.nth(0).getByRole('cell').allInnerTexts()).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d$/),
      '-',
      'GET http://127.0.0.1:9/',
      '-',
      'refused 407: the gateway needs a client name and password',
      '0 B',
      '0 B',
      expect.stringMatching(/^\d+ ms$/),
    ]);
    expect(await rows.nth(1).getByRole('cell').nth(4).innerText()).toBe(
      'no-member 502: the fleet has no proxy the gateway can use',
    );
    expect(await rows.nth(1).getByRole('cell').nth(1).innerText()).toBe('desk');
    await page.getByRole('searchbox', { name: 'Filter' }).fill('407');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await list.innerText()).not.toContain(decodeURIComponent(url.password));
    expect(await page.getByText('No proxy yet').count()).toBe(1);
    expect(await audit(page)).toEqual([]);

    // Client settings for the gateway: PAC, a refused session ID, then Shell with a session ID.
    const password = decodeURIComponent(url.password);
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    await page.getByRole('button', { name: 'Client settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Client settings for the gateway' });
    const preview = dialog.getByLabel('Preview (without credentials)');
    await dialog.getByLabel('Format').selectOption('pac');
    await expect.poll(() => preview.innerText(), { timeout: 15_000 }).toContain(`PROXY 127.0.0.1:${url.port}`);
    expect(await preview.innerText()).not.toContain(password);
    const session = dialog.getByRole('textbox', { name: 'Session ID' });
    await session.fill('a-b');
    await expect.poll(() => session.getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.getByRole('alert').innerText()).toMatch(/a session ID must be 1-64 letters/);
    expect(await dialog.getByRole('button', { name: 'Copy', exact: true }).isDisabled()).toBe(true);
    await session.fill('ci7');
    await dialog.getByLabel('Format').selectOption('env');
    await expect.poll(() => preview.innerText()).toContain(`HTTP_PROXY='http://127.0.0.1:${url.port}'`);
    expect(await dialog.getByText('desk-session-ci7', { exact: true }).count()).toBe(1);
    expect(await audit(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect.poll(clipboard, { timeout: 15_000 }).toContain('desk-session-ci7');
    expect(await clipboard()).toContain(
      `export HTTP_PROXY='http://desk-session-ci7:${password}@127.0.0.1:${url.port}'`,
    );
    // The session's user name is one the gateway takes: the same 502 as the plain name (no proxy here).
    expect(
      await getThroughProxy(url.hostname, url.port, 'http://127.0.0.1:9/', `desk-session-ci7:${password}`),
    ).toMatchObject({ status: 502 });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    await box('HTTP port').fill('70000');
    await form().getByRole('button', { name: 'Save', exact: true }).click();
    await expect(box('HTTP port').getAttribute('aria-invalid')).resolves.toBe('true');
    await form().getByRole('button', { name: 'Discard changes' }).click();

    await form().getByRole('checkbox', { name: 'Run the gateway' }).uncheck();
    await form().getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => state().innerText(), { timeout: 30_000 }).toBe('Off');
    expect(app.errors).toEqual([]);
  });
});
