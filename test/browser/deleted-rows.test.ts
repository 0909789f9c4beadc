/**
 * A deleted proxy's row leaves the Proxies table at once, also after a config edit: the
 * edit rebuilds the backend, and what the backend knew about the fleet must not go with
 * it (a stopped proxy's removal once went out without its domain, and the row stayed
 * until a reload). Real `egress-desk serve`, Debian's Chromium, the real libvirtd: the
 * proxy is launched from a tiny base image with the CLI (no wait: nothing boots) and
 * forced off, then the app edits the config (a machine type saved in the catalog view)
 * and deletes the proxy through the confirmation dialog; the page is never reloaded.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { findDomainByName } from '../../electron/libvirt/index.js';
import { instanceId } from '../../electron/services/provider/kvm/names.js';
import { testEnv } from '../support/env.js';
import { useTinyApp } from './app-page.js';
import { nav, proxiesTable, proxyRow } from './page-objects.js';

const env = testEnv();
const NAME = 'egtest-rows-1';

const lane = useTinyApp(env, 'egress-rows-', [NAME]);
let page: Page;
beforeAll(() => {
  ({ page } = lane);
});
const cli = (...args: string[]): Promise<string> => lane.cli(...args);

describe('deleted rows: against the real libvirtd', () => {
  it('shows a proxy launched and stopped outside the app as stopped', async () => {
    await cli('launch', NAME, '--host', 'local');
    // No guest answers the power button: a zero timeout forces it off at once.
    await cli('stop', NAME, '--timeout', '0');
    await page.getByRole('searchbox', { name: 'Filter proxies' }).fill(NAME);
    await proxyRow(page, NAME).getByText('shutoff', { exact: true }).waitFor({ timeout: 60_000 });
  }, 180_000);

  it('drops the row of a stopped proxy deleted after a config edit, without a reload', async () => {
    // The edit: a machine type saved in the catalog view, which rebuilds the backend.
    await nav(page, 'Images & machine types').click();
    const types = page.getByRole('region', { name: 'Machine types' });
    await types.getByRole('button', { name: 'Add machine type' }).click();
    const form = types.getByRole('group', { name: 'New machine type' });
    await form.getByRole('textbox', { name: 'Name' }).fill('egtest-rows');
    await form.getByRole('textbox', { name: 'vCPUs' }).fill('1');
    await form.getByRole('textbox', { name: 'Memory (MiB)' }).fill('256');
    await form.getByRole('textbox', { name: 'Disk (GiB)' }).fill('2');
    await form.getByRole('button', { name: 'Save' }).click();
    await types.getByRole('row', { name: /^egtest-rows\b/ }).waitFor();

    await nav(page, 'Proxies').click();
    await page.getByRole('searchbox', { name: 'Filter proxies' }).fill(NAME);
    await proxiesTable(page)
      .getByRole('checkbox', { name: `Select ${NAME}` })
      .check();
    await page.getByRole('toolbar', { name: 'Proxy actions' }).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${NAME}?` });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await confirm.waitFor({ state: 'detached' });
    // Gone on the host first, so that a row still shown is the renderer's, not libvirt's.
    await expect.poll(async () => findDomainByName(lane.client, instanceId(NAME)), { timeout: 60_000 }).toBeNull();
    await expect.poll(() => proxyRow(page, NAME).count(), { timeout: 15_000 }).toBe(0);
  }, 120_000);

  it('logs no CSP violation or page error', () => {
    expect(lane.app.errors).toEqual([]);
  });
});
