/**
 * The Node side of a benchmark page in Chromium (bench/ui.ts): a context logged in to serve,
 * a page with the timing script (browser/page-timing.ts) and a reader of its main thread's
 * CPU time, the times the script records, and, when asked, a CPU profile or a trace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { VIEWPORT } from './chromium.js';
import { type PageTimes, TIMING_INIT_SCRIPT } from './page-timing.js';
import type { ServeProcess } from './serve.js';

/** The times the page's timing script has recorded so far. */
export async function times(page: Page): Promise<PageTimes> {
  return (await page.evaluate('window.__bench')) as PageTimes;
}

/** Calls one of page-timing.ts's scripts with `arg` (a string is evaluated as an expression: the call is written out). */
export async function call<T>(page: Page, script: string, arg: unknown): Promise<T> {
  return (await page.evaluate(`(${script})(${JSON.stringify(arg)})`)) as T;
}

/** Polls the page's times until `key` is set (waitForFunction would evaluate a string, which the app's CSP forbids). */
export async function waitForTime(page: Page, key: keyof PageTimes, timeoutMs = 60_000): Promise<PageTimes> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const t = await times(page);
    if (t[key] !== null) return t;
    if (Date.now() > until) throw new Error(`the page never recorded ${key} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A context logged in to serve (the printed link works once; every page after it reuses the cookie). */
export async function loggedIn(browser: Browser, serve: ServeProcess): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(serve.url);
  await page.close();
  return context;
}

const profiles = new WeakMap<Page, CDPSession>();

/**
 * With EGRESS_BENCH_PROFILE_DIR set, records the page's JavaScript CPU profile (CDP
 * Profiler) until the returned function is called, and writes it there as NAME.cpuprofile;
 * with EGRESS_BENCH_TRACE_DIR, a Chromium trace of the same span as NAME.trace.json.
 */
export async function profileIfAsked(page: Page, name: string): Promise<() => Promise<void>> {
  const dir = process.env.EGRESS_BENCH_PROFILE_DIR;
  const traceDir = process.env.EGRESS_BENCH_TRACE_DIR;
  const cdp = profiles.get(page);
  const browser = page.context().browser();
  // A Chromium trace (EGRESS_BENCH_TRACE_DIR) says what the profile calls "(program)": style, layout, paint, GC.
  if (traceDir && browser)
    await browser.startTracing(page, {
      path: join(traceDir, `${name}.trace.json`),
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink.user_timing'],
    });
  if (!dir || !cdp) return async () => void (traceDir && browser && (await browser.stopTracing()));
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    if (traceDir && browser) await browser.stopTracing();
  };
}

/** Waits until the table's rows draw their traffic sparkline and health (the figures answered after the listing). */
export async function filled(page: Page): Promise<void> {
  await page.locator('.grid-body .traffic .spark').first().waitFor({ timeout: 30_000 });
  await page.locator('.grid-body .health .dot').first().waitFor({ timeout: 30_000 });
}

/** A page with the timing script and a reader of its main thread's CPU time; page errors are collected. */
export interface TimedPage {
  page: Page;
  /** Chromium's ThreadTime for the page's main thread, ms: CPU spent, whatever else the machine is doing. */
  cpuMs: () => Promise<number>;
}

/** A page with the timing script, errors collected (a page error fails the benchmark: the figure would not be the app's). */
export async function timedPage(context: BrowserContext, errors: string[]): Promise<TimedPage> {
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  profiles.set(page, cdp);
  const cpuMs = async () =>
    ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? Number.NaN) *
    1000;
  await page.addInitScript(TIMING_INIT_SCRIPT);
  return { page, cpuMs };
}
