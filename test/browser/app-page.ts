/**
 * What the browser tests share: a throwaway home with a config on the test environment's
 * local host, the real `egress-desk serve` for it, Debian's Chromium with a page on the
 * one-time link, and every page error and console error collected (a CSP violation is
 * logged as a console error: the tests end by asserting the list is empty).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '../support/dist.js';
import type { RunAs } from '../support/cli.js';
import type { TestEnv } from '../support/env.js';
import { giveTree, userHome } from '../support/users.js';
import { VIEWPORT, launchChromium } from './chromium.js';
import { type ServeProcess, startServe } from './serve-process.js';

/** Where every run's screenshots go, and where `npm run screenshots` publishes the README's. */
export const SHOTS = join(repoRoot, 'test-results', 'screenshots');
export const DOCS_SHOTS = join(repoRoot, 'docs', 'screenshots');

/** The local host line of a config: the test pool and network, TCG (it runs on every host, with or without KVM). */
export function localHost(env: TestEnv): string {
  return `{ name: local, address: local, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;
}

export interface ConfigParts {
  /** Host lines (YAML flow maps); default: the local host alone. */
  hosts?: string[];
  /** `name: { … }` lines; default: `tiny` (1 vCPU, 128 MiB, 1 GiB). */
  machineTypes?: string[];
  /** `name: { … }` lines; none by default. */
  images?: string[];
  /** The flow map of `defaults`, e.g. `{ machineType: tiny, image: tiny }`. */
  defaults?: string;
}

/** A config file's text, on the test environment unless told otherwise. */
export function testConfig(env: TestEnv, parts: ConfigParts = {}): string {
  const lines = ['type: kvm', 'kvm:', '  hosts:', ...(parts.hosts ?? [localHost(env)]).map((h) => `    - ${h}`), '  machineTypes:', ...(parts.machineTypes ?? ['tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }']).map((m) => `    ${m}`)];
  if (parts.images?.length) lines.push('  images:', ...parts.images.map((i) => `    ${i}`));
  if (parts.defaults) lines.push(`  defaults: ${parts.defaults}`);
  return `${lines.join('\n')}\n`;
}

/** Collects the page's errors and console errors into `errors`. */
export function watchPage(page: Page, errors: string[]): Page {
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  return page;
}

export interface AppPage {
  home: string;
  serve: ServeProcess;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Every page error and console error so far. */
  errors: string[];
  /** The Views navigation's button for a view. */
  nav(name: string): ReturnType<Page['getByRole']>;
  close(): Promise<void>;
}

export interface OpenAppOptions {
  /** The temp directory's prefix. */
  prefix: string;
  /** Called with the new home before serve starts: writes `config.yaml` (and whatever else the test needs) and returns its text. */
  config: (home: string) => string;
  /** More environment for serve (HOME and EGRESS_DESK_HOME are the home). */
  env?: Record<string, string>;
  /** Grant the page clipboard access (Copy buttons). */
  clipboard?: boolean;
  /** Runs after the config is written and before serve starts (removing a previous run's leftovers). */
  prepare?: () => Promise<void>;
  /** Runs serve as this (non-root) user: the home and what `config` put in it are handed to it first. */
  as?: RunAs;
}

/** A home, serve and a Chromium page on the app; `close()` undoes all of it. */
export async function openApp(options: OpenAppOptions): Promise<AppPage> {
  const home = options.as ? userHome(options.as, options.prefix) : mkdtempSync(join(tmpdir(), options.prefix));
  writeFileSync(join(home, 'config.yaml'), options.config(home), { mode: 0o600 });
  if (options.as) giveTree(options.as, home);
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(DOCS_SHOTS, { recursive: true });
  await options.prepare?.();
  // HOME is the temporary directory too: ~/.ssh (known_hosts, config) is there, never the real one.
  const serve = await startServe({ EGRESS_DESK_HOME: home, HOME: home, ...options.env }, [], undefined, options.as);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
    if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.origin });
    const errors: string[] = [];
    const page = watchPage(await context.newPage(), errors);
    await page.goto(serve.url);
    const b = browser;
    return {
      home,
      serve,
      browser: b,
      context,
      page,
      errors,
      nav: (name) => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name, exact: true }),
      close: async () => {
        await b.close();
        await serve.stop();
      },
    };
  } catch (err) {
    await browser?.close();
    await serve.stop();
    throw err;
  }
}
