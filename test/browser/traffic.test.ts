/**
 * The fleet at work in pictures (issue 11), in Debian's Chromium through the real
 * `egress-desk serve` against the test environment's libvirtd: a proxy launched from the
 * command line (a real running domain, whose CPU and network counters the host's
 * CONNECT_GET_ALL_DOMAIN_STATS reports) gets real figures in its row, the fleet summary
 * above the table counts it and filters the table by a count, the inspector's Traffic tab
 * draws the last hour with uPlot, and the Hosts view shows memory, pool and CPU meters with
 * the proxies on the host. No CSP violation is reported (the page's own
 * `securitypolicyviolation` events, the check xterm.js has, and the console). The README's
 * pictures of the fleet at work come from the guest lane (test/guest/browser-launch.test.ts),
 * where real traffic flows through a booted proxy; the Hosts view's go to the user guide.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { DOCS_SHOTS, SHOTS, useTinyApp } from './app-page.js';
import { publishScreenshot } from './screenshots.js';
import { proxiesTable, proxyRow } from './page-objects.js';

const env = testEnv();
const NAME = 'egtest-traffic';

const lane = useTinyApp(env, 'egress-traffic-', [NAME]);
let page: Page;
beforeAll(async () => {
  ({ page } = lane);
  // Registered through the DevTools protocol (the CSP does not govern it) before anything of issue 11 is shown.
  await page.evaluate(() => {
    const w = window as unknown as { cspViolations: string[] };
    w.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.cspViolations.push(`${e.violatedDirective} ${e.sample || e.blockedURI}`),
    );
  });
});

const summary = () => page.getByRole('group', { name: 'Fleet summary' });
const violations = () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

describe('traffic, health and load in pictures, against the real libvirtd', () => {
  it("the row gets the host's real figures and a sparkline; the summary counts the fleet and filters the table", async () => {
    await lane.cli('launch', NAME, '--host', 'local');
    // Rates need two samples of the running domain (5 s apart while the table is shown); the sparkline two rates.
    await proxyRow(page, NAME)
      .getByRole('img', { name: new RegExp(`^traffic of ${NAME}, last \\d+ samples$`) })
      .waitFor({ timeout: 90_000 });
    expect(await proxyRow(page, NAME).locator('.rate').innerText()).toMatch(/^↓.+\/s ↑.+\/s$/);
    expect(await proxyRow(page, NAME).locator('.col-cpu').innerText()).toMatch(/^\d+(\.\d)?%$/);

    // The summary: one count per state, summing to the proxies listed, and the traffic now.
    await summary().waitFor();
    const counts: Record<string, number> = {};
    for (const state of ['healthy', 'slow', 'failing', 'unknown']) {
      const text = await summary()
        .getByRole('button', { name: new RegExp(`^\\d+ ${state}$`) })
        .innerText();
      counts[state] = Number(/(\d+)/.exec(text)![1]);
    }
    const listed = Number(
      /of (\d+)/.exec(
        await page.getByRole('region', { name: 'Proxies' }).locator('.view-head .meta').first().innerText(),
      )![1],
    );
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(listed);
    expect(await summary().innerText()).toMatch(/Traffic now: ↓ .+\/s in · ↑ .+\/s out/);
    await page.screenshot({ path: join(SHOTS, 'fleet-summary-light.png') });

    // Pressing the count of our proxy's state keeps it; pressing another state's hides it; pressing again shows all.
    const ours =
      /(healthy|slow|failing|unknown)/.exec(await proxyRow(page, NAME).locator('.col-health').innerText())?.[1] ??
      'unknown';
    const other = ['healthy', 'slow', 'failing', 'unknown'].find((s) => s !== ours)!;
    const button = (state: string) => summary().getByRole('button', { name: new RegExp(`^\\d+ ${state}$`) });
    await button(ours).click();
    expect(await button(ours).getAttribute('aria-pressed')).toBe('true');
    await proxyRow(page, NAME).waitFor();
    await button(other).click();
    await proxyRow(page, NAME).waitFor({ state: 'detached' });
    expect(await proxiesTable(page).getByRole('row').count()).toBe(1 + counts[other]!);
    await button(other).click();
    await proxyRow(page, NAME).waitFor();
    expect(await violations()).toEqual([]);

    // A page opened later (a second window) draws the sparkline at once from the backend's
    // recent points (sparkPoints): built from new samples alone, it would need 5 s for its
    // second point, and could show no more than 2 within 4 s of opening.
    const samples = async (p: Page) =>
      Number(
        /last (\d+) samples/.exec(
          (await proxyRow(p, NAME)
            .getByRole('img', { name: /^traffic of / })
            .getAttribute('aria-label')) ?? '',
        )?.[1] ?? 0,
      );
    await expect.poll(() => samples(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    const before = await samples(page);
    const second = await page.context().newPage();
    try {
      await second.goto(page.url());
      await second
        .getByRole('img', { name: new RegExp(`^traffic of ${NAME}, last \\d+ samples$`) })
        .waitFor({ timeout: 4_000 });
      expect(await samples(second)).toBeGreaterThanOrEqual(before);
    } finally {
      await second.close();
    }
  }, 180_000);

  it("the inspector's Traffic tab draws the last hour (traffic, CPU, latency) with uPlot, under the CSP", async () => {
    await proxyRow(page, NAME)
      .getByRole('button', { name: `Inspect ${NAME}` })
      .click();
    const inspector = page.getByRole('region', { name: `Inspector for ${NAME}` });
    await inspector.getByRole('tab', { name: 'Traffic', exact: true }).click();
    const panel = inspector.getByRole('tabpanel', { name: 'Traffic' });
    for (const chart of [
      `Bytes a second in and out of ${NAME} over the last hour`,
      `CPU of ${NAME} over the last hour`,
      `Latency of health probes through ${NAME} over the last hour`,
    ]) {
      await panel.getByRole('img', { name: chart }).locator('canvas').waitFor();
    }
    // The history of this proxy came over the bridge, and the live samples extend it.
    const samples = async () =>
      Number(
        /; (\d+) samples\)/.exec(await panel.getByRole('heading', { name: /^Traffic, last hour/ }).innerText())?.[1] ??
          0,
      );
    await expect.poll(samples, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    const before = await samples();
    await expect.poll(samples, { timeout: 30_000 }).toBeGreaterThan(before);
    expect(await panel.getByLabel(`Figures of ${NAME} now`).innerText()).toMatch(/in .+\/s, out .+\/s/);
    // uPlot drew the CPU line in its series colour (the canvas has pixels of it, not only axes).
    const drawn = await panel.getByRole('img', { name: `CPU of ${NAME} over the last hour` }).evaluate((el) => {
      const canvas = el.querySelector('canvas')!;
      const want = getComputedStyle(el).getPropertyValue('--chart-cpu').trim();
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(want.slice(i, i + 2), 16));
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4)
        if (Math.abs(data[i]! - r!) < 24 && Math.abs(data[i + 1]! - g!) < 24 && Math.abs(data[i + 2]! - b!) < 24) n++;
      return n;
    });
    expect(drawn).toBeGreaterThan(10);
    expect(await page.locator('style').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'inspector-traffic-light.png') });
    expect(await violations()).toEqual([]);
    await inspector.getByRole('button', { name: 'Back to proxies' }).click();
  }, 120_000);

  it('the Hosts view shows memory, pool and CPU meters and the proxies on the host with their health', async () => {
    await lane.app.nav('Hosts').click();
    const card = page.getByRole('article', { name: 'local' });
    const load = card.getByRole('group', { name: 'Load of local' });
    await load.waitFor({ timeout: 60_000 });
    const memory = load.getByRole('meter', { name: 'Memory' });
    expect(Number(await memory.getAttribute('value'))).toBeGreaterThan(0);
    expect(Number(await memory.getAttribute('value'))).toBeLessThanOrEqual(Number(await memory.getAttribute('max')));
    await load.getByRole('meter', { name: `Pool ${env.EGRESS_TEST_POOL}` }).waitFor();
    await load.getByRole('meter', { name: 'CPU (proxies)' }).waitFor();
    const proxies = card.getByRole('list', { name: 'Proxies on local' });
    expect(await proxies.getByRole('listitem').filter({ hasText: NAME }).innerText()).toMatch(
      new RegExp(`(healthy|slow|failing|unknown)\\s+${NAME}`),
    );
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: join(SHOTS, 'hosts-load-light.png') });
    publishScreenshot(join(SHOTS, 'hosts-load-light.png'), join(DOCS_SHOTS, 'hosts-load.png'));
    expect(await violations()).toEqual([]);
  }, 90_000);

  it('logs no CSP violation or page error', () => {
    expect(lane.app.errors).toEqual([]);
  });
});
