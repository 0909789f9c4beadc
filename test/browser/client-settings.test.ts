/**
 * The Client settings action in the table (issue 16): the row's Settings opens the dialog
 * with its format picker, and the real backend answers through `proxies:clientSettings`.
 * On the tiny image (an empty disk: the domain runs but never gets an address) the dialog
 * says, naming the proxy, that there is nothing for clients to use yet, for every format,
 * and offers no Copy or Download. The settings themselves are proven on a real guest
 * (test/support/socks-guest.ts, in the guest lane's bake test) and per format in test/unit/shared/client-settings.test.ts.
 * Real `egress-desk serve`, Chromium, libvirtd.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { useTinyApp } from './app-page.js';
import { proxyRow } from './page-objects.js';

const env = testEnv();
const NAME = 'egtest-client-s';

const lane = useTinyApp(env, 'egress-client-', [NAME]);
let page: Page;
beforeAll(() => {
  ({ page } = lane);
});

describe('Client settings from the table, against the real backend', () => {
  it('opens from the row, picks formats, and says why a proxy without an address has none', async () => {
    await lane.cli('launch', NAME, '--host', 'local');
    const row = proxyRow(page, NAME);
    await row.getByRole('button', { name: `Client settings of ${NAME}` }).click({ timeout: 60_000 });
    const dialog = page.getByRole('dialog', { name: `Client settings for ${NAME}` });
    await dialog
      .getByRole('alert')
      .getByText(new RegExp(`${NAME}: not running with a known address yet`))
      .waitFor();
    const format = dialog.getByLabel('Format');
    expect(await format.locator('option').allTextContents()).toEqual([
      'Shell (export HTTP_PROXY=…)',
      'curl config (curl -K)',
      'FoxyProxy import (JSON)',
      'PAC file (proxy auto-config)',
      'Kubernetes Secret (YAML)',
      'JSON for scripts',
      'URLs, one a line',
    ]);
    await format.selectOption('k8s-secret');
    await dialog
      .getByRole('alert')
      .getByText(/not running with a known address yet/)
      .waitFor();
    expect(await dialog.getByRole('button', { name: 'Copy' }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  }, 180_000);
});
