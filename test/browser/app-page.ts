/**
 * What the browser tests share: a throwaway home with a config on the test environment's
 * local host, the real `egress-desk serve` for it, Debian's Chromium with a page on the
 * one-time link, and every page error and console error collected (a CSP violation is
 * logged as a console error: the tests end by asserting the list is empty).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { fakeProxies, routeProxiesList } from '../../bench/browser/fake-listing.js';
import { type LibvirtClient, findVolume } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { runCliProcess } from '../support/cli.js';
import { removeProxy, systemClient, testPool } from '../support/libvirt.js';
import { repoRoot } from '../support/dist.js';
import type { RunAs } from '../support/cli.js';
import type { TestEnv } from '../support/env.js';
import { settingsPath } from '../../electron/services/settings/settings-file.js';
import { tinyImage } from '../support/provider.js';
import { giveTree, userHome } from '../support/users.js';
import { VIEWPORT, launchChromium } from './chromium.js';
import { type ServeProcess, startServe } from './serve-process.js';
import { nav, proxiesTable } from './page-objects.js';
import { tempDir } from '../support/temp-dir.js';

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
  const lines = [
    'type: kvm',
    'kvm:',
    '  hosts:',
    ...(parts.hosts ?? [localHost(env)]).map((h) => `    - ${h}`),
    '  machineTypes:',
    ...(parts.machineTypes ?? ['tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }']).map((m) => `    ${m}`),
  ];
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
  /**
   * The app's automatic bake after a launch on a plain base (settings.json `autoBake`): off
   * unless asked for. The browser lane's launches are of an empty disk that boots no guest
   * (a bake of it cannot finish) or are followed by checks that the host is as before, which
   * a bake still running in the background would break; baking is tested in the guest lane.
   */
  autoBake?: boolean;
  /**
   * Serve and Chromium run inside this network namespace (root only): the backend's
   * readiness and health probes then reach guests on the test network directly, as from a
   * workstation with a route to them (the guest lane's auto-replace test).
   */
  netns?: string;
  /** More of the app's settings.json (beside `autoBake`), e.g. `autoReplace`. */
  settings?: Record<string, unknown>;
}

/** A home, serve and a Chromium page on the app; `close()` undoes all of it. */
export async function openApp(options: OpenAppOptions): Promise<AppPage> {
  const home = options.as ? userHome(options.as, options.prefix) : tempDir(options.prefix);
  writeFileSync(join(home, 'config.yaml'), options.config(home), { mode: 0o600 });
  const settings = { ...(options.autoBake !== true ? { autoBake: false } : {}), ...options.settings };
  if (Object.keys(settings).length) writeFileSync(settingsPath(home), `${JSON.stringify(settings)}\n`, { mode: 0o600 });
  if (options.as) giveTree(options.as, home);
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(DOCS_SHOTS, { recursive: true });
  await options.prepare?.();
  // HOME is the temporary directory too: ~/.ssh (known_hosts, config) is there, never the real one.
  const serve = await startServe(
    { EGRESS_DESK_HOME: home, HOME: home, ...options.env },
    [],
    undefined,
    options.as,
    options.netns,
  );
  let browser: Browser | undefined;
  try {
    browser = await launchChromium(options.netns);
    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
    if (options.clipboard)
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.origin });
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
      nav: (name) => nav(page, name),
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

/**
 * The app on the test environment's local host with the `tiny` image (an empty qcow2 made for
 * the test: launches that need no guest) as the default; `sha256` is its digest, so that a
 * test can tell whether it uploaded the base volume itself.
 */
export async function openTinyApp(env: TestEnv, prefix: string): Promise<{ app: AppPage; sha256: string }> {
  let sha256 = '';
  const app = await openApp({
    prefix,
    config: (dir) => {
      const image = tinyImage(dir);
      sha256 = image.sha256;
      return testConfig(env, {
        images: [`tiny: { url: "file://${image.path}", sha256: ${image.sha256} }`],
        defaults: '{ machineType: tiny, image: tiny }',
      });
    },
  });
  return { app, sha256 };
}

/**
 * The app on the test environment's local host with its proxies:list answer replaced on the
 * wire by `count` {@link fakeProxies} (bench/browser/fake-listing.ts: the product build,
 * unchanged): the page reloaded, and ready once the table shows `bulk-0001`.
 */
export async function openFakeFleetApp(env: TestEnv, prefix: string, count: number): Promise<AppPage> {
  const app = await openApp({ prefix, config: () => testConfig(env) });
  try {
    await routeProxiesList(app.page, fakeProxies(count));
    await app.page.reload();
    await proxiesTable(app.page)
      .getByRole('row', { name: /bulk-0001/ })
      .waitFor({ timeout: 60_000 });
    return app;
  } catch (err) {
    await app.close();
    throw err;
  }
}

/** Waits until the Proxies view has loaded: its table, or the empty state (other test files' proxies may be on the same libvirtd). */
export async function proxiesLoaded(page: Page): Promise<void> {
  await page
    .getByRole('heading', { name: 'Launch your first proxy' })
    .or(proxiesTable(page))
    .waitFor({ timeout: 60_000 });
}

/** What {@link useTinyApp} opens, filled in before the file's tests run. */
export interface TinyLane {
  app: AppPage;
  page: Page;
  home: string;
  client: LibvirtClient;
  /** `egress-desk proxies …` on the app's own config and data directory (its credentials too); throws on a non-zero exit. */
  cli(...args: string[]): Promise<string>;
}

/**
 * beforeAll/afterAll of a browser test that launches `names` on the tiny image: the app
 * opened (and loaded), the proxies removed before and after, and the tiny base volume too
 * when this file uploaded it (else another test's is left alone).
 */
export function useTinyApp(env: TestEnv, prefix: string, names: readonly string[]): TinyLane {
  const lane = {} as TinyLane;
  let sha256 = '';
  let ownBase = false;
  const cleanUp = async (): Promise<void> => {
    for (const [i, name] of names.entries())
      await removeProxy(lane.client, name, i === names.length - 1 && ownBase ? [baseVolumeName(sha256, 'qcow2')] : []);
  };
  beforeAll(async () => {
    lane.client = await systemClient();
    ({ app: lane.app, sha256 } = await openTinyApp(env, prefix));
    lane.page = lane.app.page;
    lane.home = lane.app.home;
    lane.cli = async (...args) => {
      const r = await runCliProcess(['--config', join(lane.home, 'config.yaml'), 'proxies', ...args], {
        HOME: lane.home,
        EGRESS_DESK_HOME: lane.home,
      });
      if (r.code !== 0) throw new Error(`proxies ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    };
    await cleanUp();
    ownBase = (await findVolume(lane.client, await testPool(lane.client), baseVolumeName(sha256, 'qcow2'))) === null;
    await proxiesLoaded(lane.page);
  });
  afterAll(async () => {
    await lane.app?.close();
    if (sha256 && lane.client) await cleanUp().catch(() => undefined);
    await lane.client?.close();
  });
  return lane;
}
