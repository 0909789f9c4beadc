/**
 * Running a fleet in the table (issue 16): proxies launched from the command line with
 * labels and an expiry reach the open page (lifecycle events, no reload), are filtered by
 * `env=…` in the filter box (exactly: env=prod is not env=dev), and show their labels and
 * the countdown; a label edited in the app (Labels, proxies:label) reaches the metadata,
 * the filter and the Group by rows. Real `egress-desk serve`, Chromium, libvirtd.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { useTinyApp } from './app-page.js';
import { proxiesTable, proxyRow } from './page-objects.js';

const env = testEnv();
const PROD = 'egtest-fleet-p';
const DEV = 'egtest-fleet-d';

const lane = useTinyApp(env, 'egress-fleet-', [PROD, DEV]);
let page: Page;
beforeAll(() => {
  ({ page } = lane);
});
const cli = (...args: string[]): Promise<string> => lane.cli(...args);

describe('labels and expiry in the table, against the real libvirtd', () => {
  it('filters by env=…, shows the labels and the countdown', async () => {
    await cli('launch', PROD, '--host', 'local', '--label', 'env=prod', '--ttl', '8h');
    await cli('launch', DEV, '--host', 'local', '--label', 'env=dev');
    const filter = page.getByRole('searchbox', { name: 'Filter proxies' });
    await filter.fill('env=prod');
    await proxyRow(page, PROD).getByText('env=prod', { exact: true }).waitFor({ timeout: 60_000 });
    await proxyRow(page, PROD)
      .getByText(/⏱ 7h 5\dm left/)
      .waitFor();
    await proxyRow(page, DEV).waitFor({ state: 'detached' });
    await filter.fill('env=dev');
    await proxyRow(page, DEV).getByText('env=dev', { exact: true }).waitFor();
    await proxyRow(page, PROD).waitFor({ state: 'detached' });
  }, 180_000);

  it('edits a label in the app (no restart), and the filter and the grouping follow it', async () => {
    const filter = page.getByRole('searchbox', { name: 'Filter proxies' });
    await filter.fill('');
    await proxiesTable(page)
      .getByRole('checkbox', { name: `Select ${DEV}` })
      .check({ timeout: 60_000 });
    await page.getByRole('toolbar', { name: 'Proxy actions' }).getByRole('button', { name: 'Labels' }).click();
    const dialog = page.getByRole('dialog', { name: `Labels of ${DEV}` });
    const field = dialog.getByRole('textbox', { name: 'Labels' });
    expect(await field.inputValue()).toBe('env=dev');
    await field.fill('env=prod Tier=edge');
    await dialog.getByText(/label key must be/).waitFor();
    expect(await dialog.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await field.fill('env=prod tier=edge');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 60_000 });
    expect(await lane.cli('list', '-l', 'tier=edge')).toContain(DEV);
    await filter.fill('env=prod');
    await proxyRow(page, DEV).getByText('tier=edge', { exact: true }).waitFor({ timeout: 30_000 });
    await proxyRow(page, PROD).waitFor();
    await filter.fill('');
    await page.getByRole('combobox', { name: /Group by/ }).selectOption('tier');
    await proxiesTable(page)
      .getByRole('row', { name: /tier=edge\s*1 proxy/ })
      .waitFor();
    await proxiesTable(page)
      .getByRole('row', { name: /no tier\s*1 proxy/ })
      .waitFor();
    await page.getByRole('combobox', { name: /Group by/ }).selectOption('');
    await proxiesTable(page)
      .getByRole('row', { name: /no tier/ })
      .waitFor({ state: 'detached' });
    expect(lane.app.errors).toEqual([]);
  }, 180_000);
});
