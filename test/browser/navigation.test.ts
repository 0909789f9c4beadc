/**
 * Where the person is has one owner (renderer/stores/ui-store.ts): in Chromium, through the
 * real `egress-desk serve`, with the Proxies table filled by a replaced proxies:list answer
 * (bench/browser/fake-listing.ts: the product build, unchanged), the inspector opened on a
 * row closes when the sidebar's Proxies is clicked, and after a trip to another view; Back
 * still returns to the row.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { type AppPage, openFakeFleetApp } from './app-page.js';
import { proxiesTable } from './page-objects.js';

const env = testEnv();
let app: AppPage;
let page: Page;

const inspector = () => page.getByRole('region', { name: /^Inspector for / });

/** Opens the inspector from the table (closing one a failed test left open, so each test stands alone). */
async function inspect(name: string): Promise<void> {
  const back = inspector().getByRole('button', { name: 'Back to proxies' }).first();
  if (await back.count()) await back.click();
  await proxiesTable(page)
    .getByRole('button', { name: `Inspect ${name}`, exact: true })
    .click();
  await inspector().waitFor();
}

beforeAll(async () => {
  app = await openFakeFleetApp(env, 'egress-navigation-', 3);
  page = app.page;
});

afterAll(async () => {
  await app?.close();
});

describe('navigation: one owner', () => {
  it("the sidebar's Proxies closes the inspector and shows the table", async () => {
    await inspect('bulk-0001');
    await app.nav('Proxies').click();
    await proxiesTable(page).waitFor({ timeout: 5000 });
    await expect(inspector().count()).resolves.toBe(0);
    await expect(app.nav('Proxies').getAttribute('aria-current')).resolves.toBe('page');
  });

  it('another view and back through the sidebar shows the table, not the inspector', async () => {
    await inspect('bulk-0002');
    await app.nav('Hosts').click();
    await page.getByRole('heading', { name: 'Hosts', exact: true, level: 2 }).waitFor();
    await app.nav('Proxies').click();
    await proxiesTable(page).waitFor({ timeout: 5000 });
    await expect(inspector().count()).resolves.toBe(0);
    // And it stays closed over a reload (the remembered place is the table).
    await page.reload();
    await proxiesTable(page)
      .getByRole('row', { name: /bulk-0002/ })
      .waitFor({ timeout: 30_000 });
    await expect(inspector().count()).resolves.toBe(0);
  });

  it("Back from the inspector returns the focus to the row's Inspect button", async () => {
    await inspect('bulk-0000');
    // The head's Back (a gone proxy's notice has one too).
    await inspector().getByRole('button', { name: 'Back to proxies' }).first().click();
    await proxiesTable(page).waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Inspect bulk-0000');
  });

  it('logs no CSP violation or page error', () => {
    expect(app.errors).toEqual([]);
  });
});
