/**
 * The Proxies table's rows are slots (renderer/views/ProxyWindow.tsx): as the table scrolls,
 * each rendered row element shows the next proxy instead of being removed and created again.
 * What a person must not notice: the keyboard still walks row by row past the window's edge,
 * and the focus stays on the proxy it was on, never on whichever proxy a slot shows now (Enter
 * on a focused button opens the proxy the person chose). In Chromium through the real
 * `egress-desk serve`, the listing replaced on the wire with 300 proxies
 * (bench/browser/fake-listing.ts: the product build, unchanged).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { type AppPage, openFakeFleetApp } from './app-page.js';
import { proxiesTable } from './page-objects.js';

const env = testEnv();
let app: AppPage;
let page: Page;

const ROW_HEIGHT = 36; // .grid-row in renderer/styles.css

/** What has the focus: the proxy of the row it is in (data-key), its aria-rowindex, and the element's own name. */
function focused(): Promise<{ key: string | null; rowIndex: number | null; label: string | null; tag: string }> {
  return page.evaluate(() => {
    const a = document.activeElement as HTMLElement | null;
    const row = a?.closest<HTMLElement>('[role=row][data-key]') ?? null;
    return {
      key: row?.dataset.key ?? null,
      rowIndex: row ? Number(row.getAttribute('aria-rowindex')) : null,
      label: a?.getAttribute('aria-label') ?? null,
      tag: a?.tagName ?? '',
    };
  });
}

/** Scrolls the body by `rows` rows and waits until the window has rendered (two frames). */
async function scrollBy(rows: number): Promise<void> {
  await page.evaluate(async (px) => {
    const el = document.querySelector<HTMLElement>('.grid-body')!;
    el.scrollTop += px;
    await new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
  }, rows * ROW_HEIGHT);
}

async function toTop(): Promise<void> {
  await page.evaluate(() => {
    document.querySelector<HTMLElement>('.grid-body')!.scrollTop = 0;
  });
  await scrollBy(0);
}

beforeAll(async () => {
  app = await openFakeFleetApp(env, 'egress-slots-', 300);
  page = app.page;
});

afterAll(async () => {
  await app?.close();
});

describe("the Proxies table's row slots", () => {
  it('reuses its row elements as it scrolls: an element shows another proxy, and the DOM holds a window, not the fleet', async () => {
    await toTop();
    const before = await page.evaluate(() => {
      const row = document.querySelector<HTMLElement>('.grid-body [role=row][data-key]')!;
      row.dataset.probe = 'first';
      return { key: row.dataset.key, rows: document.querySelectorAll('.grid-body [role=row]').length };
    });
    await scrollBy(50);
    const after = await page.evaluate(() => {
      const row = document.querySelector<HTMLElement>('.grid-body [data-probe=first]');
      return { key: row?.dataset.key ?? null, rows: document.querySelectorAll('.grid-body [role=row]').length };
    });
    expect(after.key, "the first slot's element is still in the table").not.toBeNull();
    expect(after.key).not.toBe(before.key);
    expect(before.rows).toBeLessThan(60);
    expect(after.rows).toBeLessThan(60);
  });

  it('walks row by row with the arrow keys, far past the rows first rendered', async () => {
    await toTop();
    const first = proxiesTable(page).locator('[role=row][data-key]').first();
    await first.focus();
    const seen = new Set<string>();
    let at = await focused();
    expect(at.rowIndex).toBe(2);
    for (let step = 1; step <= 45; step++) {
      await page.keyboard.press('ArrowDown');
      const now = await focused();
      // One row further each time, on a row (not lost to the page), and a proxy not seen before.
      expect(now.rowIndex, `step ${step}`).toBe(at.rowIndex! + 1);
      expect(now.tag).toBe('DIV');
      expect(seen.has(now.key!), `step ${step}: ${now.key} twice`).toBe(false);
      seen.add(now.key!);
      at = now;
    }
    for (let step = 1; step <= 10; step++) await page.keyboard.press('ArrowUp');
    expect((await focused()).rowIndex).toBe(at.rowIndex! - 10);
  });

  it('walks on when arrow keys come faster than frames (a held key on a busy machine)', async () => {
    await toTop();
    await proxiesTable(page).locator('[role=row][data-key]').first().focus();
    const before = await focused();
    // Forty presses (past the rows first rendered) with no frame between them: each a task of its own, as real key events are
    // (the awaits let React finish each one), but the body's scroll event waits for a frame.
    const rowIndex = await page.evaluate(async () => {
      for (let i = 0; i < 40; i++) {
        document.activeElement!.dispatchEvent(
          new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true, cancelable: true }),
        );
        await null;
      }
      return Number(document.activeElement!.closest('[role=row][data-key]')?.getAttribute('aria-rowindex'));
    });
    expect(rowIndex).toBe(before.rowIndex! + 40);
  });

  it('keeps the focus on its proxy when its slot shows another, and Enter opens that proxy', async () => {
    await toTop();
    await scrollBy(3);
    const name = await proxiesTable(page)
      .locator('[role=row][data-key]')
      .nth(8)
      .locator('.col-name')
      .evaluate((el) => el.firstChild?.textContent ?? '');
    const inspect = proxiesTable(page).getByRole('button', { name: `Inspect ${name}`, exact: true });
    await inspect.focus();
    const before = await focused();
    // Two rows down: every slot now shows another proxy; this one's row is two slots higher.
    await scrollBy(2);
    const after = await focused();
    expect(after.key).toBe(before.key);
    expect(after.label).toBe(`Inspect ${name}`);
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: `Inspector for ${name}` }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Escape');
    await proxiesTable(page).waitFor();
  });

  it('lets go of the focus when its proxy scrolls out of the window, so Enter acts on nothing', async () => {
    await toTop();
    const row = proxiesTable(page).locator('[role=row][data-key]').nth(2);
    await row.focus();
    await scrollBy(120);
    const at = await focused();
    expect(at.key, 'no row of the table has the focus').toBeNull();
    await page.keyboard.press('Enter');
    await new Promise((r) => setTimeout(r, 300));
    await expect(page.getByRole('region', { name: /^Inspector for / }).count()).resolves.toBe(0);
  });
});
