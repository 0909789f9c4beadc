/**
 * The Launch dialog opened as a user opens it, from the Proxies view's toolbar: benchmark (h)
 * (bench/ui.ts) times what follows, and the browser lane (test/browser/) checks it; one
 * place for the accessible names both go by.
 */
import type { Locator, Page } from 'playwright-core';

/**
 * Clicks the Launch button of the Proxies view's "Proxy actions" toolbar and waits for the
 * "Launch a proxy" dialog; resolves with the dialog.
 */
export async function openLaunchDialog(page: Page): Promise<Locator> {
  await page
    .getByRole('toolbar', { name: 'Proxy actions' })
    .getByRole('button', { name: 'Launch', exact: true })
    .click();
  const dialog = page.getByRole('dialog', { name: 'Launch a proxy' });
  await dialog.waitFor();
  return dialog;
}
