/**
 * The browser lane's page objects: the locators every file used to define for itself (the
 * Views navigation, the proxies table and its rows, the launch dialog and its progress), and
 * the steps of filling in the launch form, in one place, so that a change of the app's
 * accessible names is one change here.
 */
import type { Locator, Page } from 'playwright-core';

/** The Views navigation's button for a view ("Proxies", "Hosts", "Config", …). */
export function nav(page: Page, name: string): Locator {
  return page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name, exact: true });
}

/** The proxies table. */
export function proxiesTable(page: Page): Locator {
  return page.getByRole('table', { name: 'Proxies' });
}

/** `text` as a literal inside a regular expression. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A row of the proxies table, by the proxy's name as a whole word of the row's name. */
export function proxyRow(page: Page, name: string): Locator {
  return proxiesTable(page).getByRole('row', { name: new RegExp(`\\b${literal(name)}\\b`) });
}

/** The launch dialog's form ("Launch a proxy"). */
export function launchForm(page: Page): Locator {
  return page.getByRole('dialog', { name: 'Launch a proxy' });
}

/** The progress dialog of the launch of proxy `name`. */
export function launchProgress(page: Page, name: string): Locator {
  return page.getByRole('dialog', { name: `Launching ${name}` });
}

/** What {@link fillLaunchForm} types and picks in the launch dialog. */
export interface LaunchFields {
  name: string;
  host: string;
  /** The Allowed clients field; left as the form fills it when not given. */
  allowedClients?: string;
}

/**
 * Clicks the Proxies toolbar's Launch (waiting up to a minute for the app to offer it) and
 * fills in the launch dialog's form; returns the form, its Launch button not yet clicked.
 */
export async function fillLaunchForm(page: Page, fields: LaunchFields): Promise<Locator> {
  await page
    .getByRole('toolbar', { name: 'Proxy actions' })
    .getByRole('button', { name: 'Launch', exact: true })
    .click({ timeout: 60_000 });
  const form = launchForm(page);
  await form.getByRole('textbox', { name: 'Name' }).fill(fields.name);
  await form.getByRole('combobox', { name: 'Host' }).selectOption(fields.host);
  if (fields.allowedClients !== undefined)
    await form.getByRole('textbox', { name: /Allowed clients/ }).fill(fields.allowedClients);
  return form;
}
