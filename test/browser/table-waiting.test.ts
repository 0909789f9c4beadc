/**
 * The Proxies table while its listing is on its way (renderer/placeholder-rows.ts): a
 * screenful of stand-in rows drawn as bars, and the fleet summary with dashes. They are not
 * rows to a screen reader or to the keyboard, axe finds nothing wrong with the page, and
 * when the listing arrives its rows take the stand-ins' elements (that is what makes the
 * first real frame cheap) and the table does not move. In Chromium through the real
 * `egress-desk serve`, the listing held back and then replaced on the wire with 300
 * proxies (bench/browser/fake-listing.ts: the product build, unchanged).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeProxies, routeAnswers } from '../../bench/browser/fake-listing.js';
import { testEnv } from '../support/env.js';
import { type AppPage, SHOTS, openApp, testConfig, watchPage } from './app-page.js';
import { audit } from './axe-audit.js';
import { proxiesTable } from './page-objects.js';

const env = testEnv();
let app: AppPage;
let page: Page;
let release: () => void;
/** Where the table's body was while waiting. */
let waitingTop = Number.NaN;

const summary = () => page.getByRole('group', { name: 'Fleet summary' });

beforeAll(async () => {
  app = await openApp({ prefix: 'egress-waiting-', config: () => testConfig(env) });
  // A page of its own, in the logged-in context: its first listing is held until the test releases it.
  page = watchPage(await app.context.newPage(), app.errors);
  release = await routeAnswers(
    page,
    { 'proxies:list': () => ({ proxies: fakeProxies(300), hosts: [] }) },
    { hold: 'proxies:list' },
  );
  await page.goto(`${app.serve.origin}/`);
});

afterAll(async () => {
  release?.();
  await app?.close();
});

describe('the Proxies table before its listing arrives', () => {
  it('shows stand-in rows and a summary with dashes, which no one but the eye takes for rows', async () => {
    await page.locator('.grid-body .grid-row.placeholder').first().waitFor();
    const state = await page.evaluate(() => {
      const stand = [...document.querySelectorAll<HTMLElement>('.grid-body .grid-row.placeholder')];
      const body = document.querySelector<HTMLElement>('.grid-body')!;
      stand[0]!.dataset.probe = 'stand-in';
      return {
        count: stand.length,
        // Enough to fill the body: the stand-ins cover what the rows will.
        filled: stand.length * 36 >= body.clientHeight,
        hidden: stand.every(
          (r) => r.getAttribute('aria-hidden') === 'true' && r.inert && r.getAttribute('role') === null,
        ),
        rows: document.querySelectorAll('.grid-body [role=row]').length,
        top: body.getBoundingClientRect().top,
      };
    });
    expect(state.count).toBeGreaterThan(0);
    expect(state.filled).toBe(true);
    expect(state.hidden).toBe(true);
    expect(state.rows).toBe(0);
    await expect(proxiesTable(page).getAttribute('aria-busy')).resolves.toBe('true');
    await expect(proxiesTable(page).getByRole('row').count()).resolves.toBe(1); // the head's
    await expect(
      summary()
        .getByRole('button', { name: /healthy/ })
        .isDisabled(),
    ).resolves.toBe(true);
    await expect(summary().textContent()).resolves.toMatch(/– healthy.*listing the proxies/);
    await page.screenshot({ path: join(SHOTS, 'proxies-waiting.png') });
    // Tab from the filter field passes over every stand-in's checkbox and buttons.
    await page.getByRole('searchbox', { name: 'Filter proxies' }).focus();
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.closest('.placeholder') === null)).toBe(true);
    }
    expect(await audit(page)).toEqual([]);
    waitingTop = state.top;
  });

  it("gives the stand-ins' elements to the listing's rows, and the table stays where it was", async () => {
    release();
    await proxiesTable(page)
      .getByRole('row', { name: /bulk-0001/ })
      .waitFor({ timeout: 60_000 });
    const after = await page.evaluate(() => {
      const probe = document.querySelector<HTMLElement>('.grid-body [data-probe=stand-in]');
      return {
        probe: probe
          ? {
              role: probe.getAttribute('role'),
              key: probe.dataset.key ?? null,
              hidden: probe.getAttribute('aria-hidden'),
              inert: probe.inert,
            }
          : null,
        placeholders: document.querySelectorAll('.grid-body .placeholder').length,
        top: document.querySelector<HTMLElement>('.grid-body')!.getBoundingClientRect().top,
      };
    });
    expect(after.probe, "the first stand-in's element is a row now").toEqual({
      role: 'row',
      key: expect.stringMatching(/^local\/ep-bulk-\d+$/),
      hidden: null,
      inert: false,
    });
    expect(after.placeholders).toBe(0);
    expect(after.top).toBe(waitingTop);
    await expect(proxiesTable(page).getAttribute('aria-busy')).resolves.toBe('false');
    await expect(
      summary()
        .getByRole('button', { name: /healthy/ })
        .isDisabled(),
    ).resolves.toBe(false);
    await expect(summary().textContent()).resolves.toMatch(/of 300 measured/);
    expect(await audit(page)).toEqual([]);
    expect(app.errors).toEqual([]);
  });
});
