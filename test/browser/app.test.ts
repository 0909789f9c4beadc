/**
 * The browser lane: the real renderer, served by the real `egress-desk serve` (the built
 * CLI), in Debian's Chromium. Screenshots go to test-results/screenshots/; the light one is
 * copied to docs/screenshots/app-config.png for the README by `npm run screenshots`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { publishScreenshot } from './screenshots.js';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/dist.js';
import { VIEWPORT, launchChromium } from './chromium.js';
import { type ServeProcess, startServe } from './serve-process.js';
import { nav } from './page-objects.js';
import { tempDir } from '../support/temp-dir.js';

const shots = join(repoRoot, 'test-results', 'screenshots');
const committed = join(repoRoot, 'docs', 'screenshots', 'app-config.png');

/** A config with the local host and one image, as a person would write it. */
const CONFIG = `type: kvm
kvm:
  hosts:
    - name: local
      address: local
    - name: edge-a
      address: 203.0.113.10
      sshUser: root
      bridge: br0
  machineTypes:
    small: { vcpus: 1, memoryMiB: 512, diskGiB: 10 }
    medium: { vcpus: 2, memoryMiB: 2048 }
  images:
    debian-12:
      url: https://images.example.org/debian-12-genericcloud-amd64.qcow2
      sha256: 0f3d5d9dbb0c4a7e6b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6
  defaults: { machineType: small, image: debian-12 }
`;

/** Page scripts are strings: this file is type-checked for Node, without the DOM. */
const CALL_APP_INFO = "window.egress.invoke('app:info')";

let home: string;
let serve: ServeProcess;
let browser: Browser;
let light: BrowserContext;
let page: Page;
/** Everything the page printed on its console or threw: a CSP violation would show here. */
const pageErrors: string[] = [];

function watch(p: Page): Page {
  p.on('pageerror', (err) => pageErrors.push(err.message));
  p.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  p.on('response', (res) => {
    if (res.status() >= 400) pageErrors.push(`${res.status()} ${res.url()}`);
  });
  return p;
}

/** Opens the Config view (the app remembers the last view) and waits for its Hosts table, drawn once config:get has answered. */
async function ready(p: Page): Promise<void> {
  await nav(p, 'Config').click({ timeout: 30_000 });
  await p.getByRole('heading', { name: 'Hosts' }).waitFor({ timeout: 30_000 });
}

beforeAll(async () => {
  home = join(tempDir('egress-browser-'), 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.yaml'), CONFIG);
  mkdirSync(shots, { recursive: true });
  serve = await startServe({ EGRESS_DESK_HOME: home });
  browser = await launchChromium();
  light = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
  page = watch(await light.newPage());
});

afterAll(async () => {
  await browser?.close();
  if (serve) expect(await serve.stop()).toBe(0);
});

describe('browser: the app through egress-desk serve', () => {
  it('opens from the one-time link, which leaves the address bar', async () => {
    await page.goto(serve.url);
    await ready(page);
    expect(page.url()).toBe(`${serve.origin}/`);
    await expect(page.title()).resolves.toBe('Egress Desk');
  });

  it('shows the config it runs from, served by serve mode', async () => {
    expect(await page.locator('header').innerText()).toContain(join(home, 'config.yaml'));
    const info = await page.evaluate(CALL_APP_INFO);
    expect(info).toMatchObject({ ok: true, value: { frontEnd: 'serve', dataDir: home } });
  });

  it('lists the hosts, machine types and images of the config', async () => {
    const hosts = page.getByRole('region', { name: 'Hosts' });
    await expect(hosts.getByRole('row', { name: /local\s+this machine\s+default\s+default/ }).count()).resolves.toBe(1);
    await expect(
      hosts.getByRole('row', { name: /edge-a\s+203\.0\.113\.10\s+default\s+bridge br0/ }).count(),
    ).resolves.toBe(1);
    const types = page.getByRole('region', { name: 'Machine types' });
    await expect(types.getByRole('row', { name: /small\s+1\s+512 MiB\s+10 GiB/ }).count()).resolves.toBe(1);
    await expect(types.getByRole('row', { name: /medium\s+2\s+2048 MiB/ }).count()).resolves.toBe(1);
    const images = page.getByRole('region', { name: 'Images' });
    await expect(images.getByRole('cell', { name: 'debian-12', exact: true }).count()).resolves.toBe(1);
    await expect(images.getByRole('cell', { name: '0f3d5d9dbb0c4a7e…' }).count()).resolves.toBe(1);
    // 3 header rows + 2 hosts + 2 machine types + 1 image.
    await expect(page.getByRole('row').count()).resolves.toBe(8);
  });

  it('reaches the backend without CSP violations or page errors', () => {
    expect(pageErrors).toEqual([]);
  });

  it('saves light and dark screenshots', async () => {
    await page.screenshot({ path: join(shots, 'app-config-light.png') });
    publishScreenshot(join(shots, 'app-config-light.png'), committed);
    // The session is the cookie: a second context with it opens the app without the (spent) token.
    const dark = await browser.newContext({
      viewport: VIEWPORT,
      colorScheme: 'dark',
      storageState: await light.storageState(),
    });
    const darkPage = watch(await dark.newPage());
    await darkPage.goto(`${serve.origin}/`);
    await ready(darkPage);
    const background = await darkPage.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).not.toBe('rgb(255, 255, 255)');
    await darkPage.screenshot({ path: join(shots, 'app-config-dark.png') });
    await dark.close();
    expect(pageErrors).toEqual([]);
  });

  it('fails calls with Disconnected once the server is gone', async () => {
    // The last test: it stops the server.
    const attempts: string[] = [];
    page.on('websocket', (ws) => attempts.push(ws.url()));
    // Stop first, then call: a call made while the server is gone is queued for the next
    // connection attempt and fails when that attempt does (a call made just before the stop
    // may legitimately be answered first).
    expect(await serve.stop()).toBe(0);
    const reply = await page.evaluate(CALL_APP_INFO);
    expect(reply).toMatchObject({
      ok: false,
      error: { name: 'Disconnected', message: expect.stringMatching(/connection to egress-desk serve was lost/) },
    });
    // It keeps trying, with backoff, to the same address.
    await expect.poll(() => attempts.length, { timeout: 10_000 }).toBeGreaterThan(1);
    expect(new Set(attempts)).toEqual(new Set([`${serve.origin.replace('http', 'ws')}/ws`]));
  });
});

describe('browser: without the link', () => {
  it('refuses a browser without the token or the cookie with the 401 text', async () => {
    const stranger = await browser.newContext({ viewport: VIEWPORT });
    const p = await stranger.newPage();
    // Started again: the lane above stopped the first server.
    const again = await startServe({ EGRESS_DESK_HOME: home });
    try {
      const response = await p.goto(`${again.origin}/`);
      expect(response?.status()).toBe(401);
      await p.getByText('this page needs the one-time link').waitFor();
      await p.screenshot({ path: join(shots, 'unauthorized.png') });
      // The first server's token is no use here either.
      const old = await p.goto(`${again.origin}/?token=${new URL(serve.url).searchParams.get('token')}`);
      expect(old?.status()).toBe(401);
    } finally {
      await stranger.close();
      expect(await again.stop()).toBe(0);
    }
  });
});
