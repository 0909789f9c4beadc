/**
 * The browser lane's page objects: the locators every file used to define for itself (the
 * Views navigation, the proxies table and its rows), in one place, so that a change of the
 * app's accessible names is one change here.
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
