/**
 * A second page on an app that openApp (app-page.ts) opened: another theme, or answers
 * replaced on the wire, beside the first page.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { type AppPage, watchPage } from './app-page.js';
import { VIEWPORT } from './chromium.js';

/** The page and its own browser context; close the context when done. */
export interface SecondPage {
  context: BrowserContext;
  page: Page;
}

/**
 * A new context in `colorScheme` with the first context's session (the one-time link is
 * spent: the session cookie lets it in), its page's errors collected with the app's, loaded
 * at the app's origin. `beforeLoad` runs on the page first (routing the WebSocket must be in
 * place before the app connects). The context is closed when opening fails.
 */
export async function openSecondPage(
  app: AppPage,
  colorScheme: 'light' | 'dark',
  beforeLoad?: (page: Page) => Promise<unknown>,
): Promise<SecondPage> {
  const context = await app.browser.newContext({
    viewport: VIEWPORT,
    colorScheme,
    storageState: await app.context.storageState(),
  });
  try {
    const page = watchPage(await context.newPage(), app.errors);
    await beforeLoad?.(page);
    await page.goto(`${app.serve.origin}/`);
    return { context, page };
  } catch (err) {
    await context.close();
    throw err;
  }
}
