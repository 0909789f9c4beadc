/**
 * How the desktop window loads the renderer, without an Electron binary (issue 37).
 *
 * The packaged app turns the GrantFileProtocolExtraPrivileges fuse off, so a `file://` page
 * gets no more than a browser gives it. Debian's Chromium treats `file://` the same way, so:
 * - the built renderer, served to Chromium through the app scheme's own handler
 *   (electron/shell/renderer-protocol.ts, the function `protocol.handle` calls) under the
 *   app's CSP, with a bridge shaped like the preload's in front of the real backend
 *   (createAppServices and ConsoleOwner, as electron/shell/app.ts wires them), renders the
 *   app with no CSP, CORS or page error;
 * - the same build opened from `file://`, as the window used to load it, renders nothing,
 *   refused by CORS: the reason for the scheme stays pinned.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServices, createAppServices } from '../../electron/ipc/app-services.js';
import { ConsoleOwner } from '../../electron/ipc/console-owner.js';
import { APP_ORIGIN, handleAppRequest } from '../../electron/shell/renderer-protocol.js';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';
import { repoRoot } from '../support/dist.js';
import { testEnv } from '../support/env.js';
import { watchPage } from './app-page.js';
import { VIEWPORT, launchChromium } from './chromium.js';
import { nav } from './page-objects.js';
import { tempDir } from '../support/temp-dir.js';

const rendererDir = join(repoRoot, 'dist', 'renderer');
const env = testEnv();

/**
 * What electron/preload.ts exposes, over two Playwright bindings instead of ipcRenderer: a
 * page script (a string: this file is type-checked for Node, without the DOM). Bindings and
 * init scripts are not subject to the page's CSP, as the preload is not.
 */
const BRIDGE = `(() => {
  const listeners = new Map();
  window.__egressEvent = (name, payload) => { for (const l of listeners.get(name) ?? []) l(payload); };
  window.egress = Object.freeze({
    invoke: (channel, input) => window.__egressInvoke(channel, input),
    on: (event, listener) => {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(listener);
      return () => listeners.get(event).delete(listener);
    },
  });
})();`;

let home: string;
let services: AppServices;
let server: Server;
let origin: string;
let browser: Browser;

/** Everything the page threw or printed as an error, and every failed response: a CSP or CORS refusal shows here. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  watchPage(page, problems);
  page.on('requestfailed', (req) => problems.push(`failed: ${req.url()} ${req.failure()?.errorText ?? ''}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} ${res.url()}`);
  });
  return problems;
}

beforeAll(async () => {
  home = tempDir('egress-app-protocol-');
  // One host, the test environment's libvirtd (a unix socket: no traffic leaves the machine).
  writeFileSync(
    join(home, 'config.yaml'),
    `type: kvm
kvm:
  hosts:
    - { name: local, address: local, socketPath: ${env.EGRESS_TEST_SOCKET}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }
  machineTypes:
    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }
  images:
    tiny: { url: 'file:///nonexistent/tiny.qcow2', sha256: '${'0'.repeat(64)}' }
  defaults: { machineType: tiny, image: tiny }
`,
  );
  services = createAppServices(home, 'electron', { version: '0.0.0-test', reconcileIntervalMs: 0, autoBake: false });
  // The request → answer path of protocol.handle: a URL of the app scheme, the handler's Response.
  server = createServer((req, res) => {
    void handleAppRequest(rendererDir, { url: `${APP_ORIGIN}${req.url ?? '/'}`, method: req.method ?? 'GET' }).then(
      async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await services?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("the desktop window's renderer, as the app scheme serves it", () => {
  it('renders the app under the CSP, with no CSP, CORS or page error', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const problems = watch(page);
    const consoles = new ConsoleOwner(services.router);
    await page.exposeFunction('__egressInvoke', (channel: unknown, input: unknown) => consoles.invoke(channel, input));
    await page.addInitScript(BRIDGE);
    const unsubscribe = services.app.subscribe((event, payload) => {
      page
        .evaluate(
          ([e, p]) =>
            (globalThis as unknown as { __egressEvent(e: string, p: unknown): void }).__egressEvent(e as string, p),
          [event, payload] as const,
        )
        .catch(() => undefined);
    });
    try {
      const response = await page.goto(`${origin}/index.html`);
      // The CSP travels as a header as well as the page's meta tag.
      expect(response?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      await expect(nav(page, 'Proxies').getAttribute('aria-current', { timeout: 30_000 })).resolves.toBe('page');
      await page.getByRole('heading', { name: 'Proxies', exact: true, level: 2 }).waitFor({ timeout: 30_000 });
      // A round trip through the bridge to the real backend: the config's host, connected.
      await nav(page, 'Hosts').click();
      await page
        .getByRole('region', { name: 'Hosts' })
        .getByRole('row', { name: /^local\b/ })
        .waitFor({ timeout: 60_000 });
      expect(problems).toEqual([]);
    } finally {
      unsubscribe();
      await consoles.release();
      await context.close();
    }
  });

  it('renders nothing from file://, refused by CORS (why the window does not use loadFile)', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const problems = watch(page);
    try {
      await page.goto(pathToFileURL(join(rendererDir, 'index.html')).href, { waitUntil: 'load' });
      // Give a module that did load the time to render: nothing may appear.
      await page.waitForTimeout(1000);
      await expect(page.locator('#root').evaluate((root) => root.childElementCount)).resolves.toBe(0);
      expect(
        problems.some((p) => /CORS/.test(p) && /\.js/.test(p)),
        problems.join('\n'),
      ).toBe(true);
    } finally {
      await context.close();
    }
  });
});
