/**
 * The whole app on the real guest image, in Chromium through `egress-desk serve`: launch a
 * proxy by clicking, watch every step up to "the proxy answers", copy its URL from the
 * dialog and fetch a page through it (inside the test namespace), find it in the table with
 * its address and that address's source, watch it at work (downloads through it: healthy,
 * its exit address, traffic in its row, the fleet summary and the inspector's charts: the
 * README's pictures of the fleet at work come from here), open the inspector (metadata,
 * address) and its serial console (the guest's login prompt, input reaching the guest), and
 * delete it through the confirmation, leaving the host as it was (the shared base volume
 * excepted).
 *
 * Serve and Chromium run inside the test namespace, where the guest network lives: the
 * app's readiness and health probes reach the guest directly, as from a workstation with a
 * route to it, and its health probe reads the exit address from an echo server in a
 * namespace of this run's own (test/support/echo-namespace.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp } from '../browser/app-page.js';
import { publishScreenshot } from '../browser/screenshots.js';
import {
  GUEST_PAGE_MARK,
  type GuestImage,
  fetchThroughProxy,
  guestConfig,
  guestImage,
  namespaceHttpServer,
} from '../support/guest.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { hypervisorState } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { type EchoNamespace, echoNamespace } from '../support/echo-namespace.js';
import { tempDir } from '../support/temp-dir.js';
import { fillLaunchForm, launchProgress, proxiesTable, proxyRow } from '../browser/page-objects.js';

const env = testEnv();
const NAME = 'egtest-gui-1';
const shots = SHOTS;
const docs = DOCS_SHOTS;

let image: GuestImage;
let client: LibvirtClient;
let http: { child: ChildProcess; url: string };
let app: AppPage;
let page: Page;
let before: Awaited<ReturnType<typeof hypervisorState>>;
let echo: EchoNamespace | undefined;
let blob: { child: ChildProcess; url: string } | undefined;
let load: ChildProcess | undefined;
/** The URL Copy URL gave (with its password): what the downloads go through. */
let proxyUrl = '';

const nav = (name: string) => app.nav(name);

const cleanUp = () => removeProxy(client, NAME);

beforeAll(async () => {
  image = guestImage();
  client = await systemClient();
  await cleanUp();
  before = await hypervisorState(client);
  http = namespaceHttpServer(env, 18082);
  // Something to download through the proxy while the pictures are taken (random: nothing compresses it).
  const www = tempDir('egress-gui-www-');
  writeFileSync(join(www, 'blob'), randomBytes(1024 * 1024));
  const served = namespaceHttpServer(env, 18093, www);
  blob = { child: served.child, url: served.url.replace(/index\.html$/, 'blob') };
  echo = await echoNamespace(env.EGRESS_TEST_NETNS);
  app = await openApp({
    prefix: 'egress-gui-',
    clipboard: true,
    config: () => guestConfig(env, image),
    netns: env.EGRESS_TEST_NETNS,
    // "Slow" from 9 s (just under the probe's 10 s timeout): a TCG guest on a busy 2-core machine is healthy here, never the slow in between.
    settings: { health: { echoUrl: echo.url, slowMs: 9000 } },
  });
  page = app.page;
}, 20 * 60_000);

afterAll(async () => {
  load?.kill();
  blob?.child.kill();
  echo?.remove();
  http?.child.kill();
  await app?.close();
  if (client) {
    await cleanUp().catch(() => undefined);
    await client.close();
  }
}, 120_000);

describe('the app on the real guest image', () => {
  it(
    'launches by clicking and shows every step until the proxy answers',
    async () => {
      const form = await fillLaunchForm(page, { name: NAME, host: 'local', allowedClients: '192.168.150.0/24' });
      const t0 = Date.now();
      await form.getByRole('button', { name: 'Launch', exact: true }).click();
      const progress = launchProgress(page, NAME);
      const steps = progress.getByRole('list', { name: 'Launch steps' });
      await steps.getByRole('listitem', { name: 'Boot the VM: done' }).waitFor({ timeout: 5 * 60_000 });
      await steps.getByRole('listitem', { name: 'Wait for an address: done' }).waitFor({ timeout: 10 * 60_000 });
      await steps
        .getByRole('listitem', { name: 'Wait for the proxy to answer: done' })
        .waitFor({ timeout: 10 * 60_000 });
      console.log(`guest browser lane: click to proxy answering ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      await progress.getByText(`${NAME} is up and its proxy answers.`).waitFor();
      expect(await steps.innerText()).toMatch(/192\.168\.150\.\d+/);
      await page.screenshot({ path: join(shots, 'launch-ready-light.png') });
    },
    15 * 60_000,
  );

  it(
    'copies a URL from the dialog that forwards HTTP',
    async () => {
      const progress = page.getByRole('dialog', { name: `Launching ${NAME}` });
      await progress.getByRole('button', { name: 'Copy URL' }).click();
      await page.getByRole('status', { name: 'Notifications' }).getByText(`Copied the URL of ${NAME}`).waitFor();
      const url = String(await page.evaluate('navigator.clipboard.readText()'));
      expect(url).toMatch(/^http:\/\/egress:[A-Za-z0-9_-]+@192\.168\.150\.\d+:3128$/);
      // The password is a secret: it is copied, never shown.
      expect(await page.content()).not.toContain(new URL(url).password);
      expect(fetchThroughProxy(env, url, http.url)).toContain(GUEST_PAGE_MARK);
      proxyUrl = url;
      await progress.getByRole('button', { name: 'Close' }).click();
      await progress.waitFor({ state: 'detached' });
    },
    5 * 60_000,
  );

  it('lists it with its address and the address source', async () => {
    const row = proxyRow(page, NAME);
    await row.waitFor({ timeout: 60_000 });
    const text = await row.innerText();
    expect(text).toMatch(/running/);
    expect(text).toMatch(/192\.168\.150\.\d+/);
    expect(text).toMatch(/lease|agent|arp/);
  });

  it(
    "at work: downloads through it show in its row, the fleet summary and the inspector's charts; healthy, with its exit address",
    async () => {
      expect(proxyUrl, 'Copy URL gave the URL above').not.toBe('');
      const row = proxyRow(page, NAME);
      const samples = async () =>
        Number(
          /last (\d+) samples/.exec(
            (await row
              .getByRole('img', { name: /^traffic of / })
              .getAttribute('aria-label')
              .catch(() => '')) ?? '',
          )?.[1] ?? 0,
        );
      // Downloads through the proxy from inside the namespace until the test ends: a second apart,
      // with a pause after every fifth, so that the charts have a shape rather than a flat line.
      const loop =
        'i=0; while :; do i=$((i+1)); curl -s -o /dev/null --max-time 20 -x "$1" "$2"; [ $((i % 5)) -eq 0 ] && sleep 8; sleep 1; done';
      load = spawn('ip', ['netns', 'exec', env.EGRESS_TEST_NETNS, 'sh', '-c', loop, 'sh', proxyUrl, blob!.url], {
        stdio: 'ignore',
      });
      const loadStarted = Date.now();
      await expect
        .poll(() => row.locator('.col-health').innerText(), { timeout: 120_000, interval: 2_000 })
        .toMatch(/healthy/);
      // The health cell's title says since when, and the exit address the echo server saw.
      await expect
        .poll(async () => (await row.locator('.col-health .health').getAttribute('title')) ?? '', {
          timeout: 90_000,
          interval: 2_000,
        })
        .toContain(`exit address ${echo!.hostSideAddress}`);
      // A minute of downloads (a sample each 5 s) before the pictures: a shape to show.
      const left = 60_000 - (Date.now() - loadStarted);
      if (left > 0) await page.waitForTimeout(left);
      expect(await samples()).toBeGreaterThanOrEqual(12);
      expect(await page.getByRole('group', { name: 'Fleet summary' }).innerText()).toMatch(/1 healthy/);
      // The pictures while a download runs (not in a pause between them).
      const busy = /[KM]iB\/s/;
      await expect.poll(() => row.locator('.rate').innerText(), { timeout: 30_000, interval: 500 }).toMatch(busy);
      await page.screenshot({ path: join(shots, 'proxies-ready-light.png') });
      publishScreenshot(join(shots, 'proxies-ready-light.png'), join(docs, 'proxies-ready.png'));
      await page.screenshot({ path: join(shots, 'fleet-summary-light.png') });
      publishScreenshot(join(shots, 'fleet-summary-light.png'), join(docs, 'fleet-summary.png'));

      await row.getByRole('button', { name: `Inspect ${NAME}` }).click();
      const inspector = page.getByRole('region', { name: `Inspector for ${NAME}` });
      await inspector.getByRole('tab', { name: 'Traffic', exact: true }).click();
      const panel = inspector.getByRole('tabpanel', { name: 'Traffic' });
      await panel
        .getByRole('img', { name: `Bytes a second in and out of ${NAME} over the last hour` })
        .locator('canvas')
        .waitFor();
      await panel.getByText(echo!.hostSideAddress).first().waitFor({ timeout: 60_000 });
      await expect
        .poll(() => panel.getByLabel(`Figures of ${NAME} now`).innerText(), { timeout: 30_000, interval: 500 })
        .toMatch(busy);
      expect(await panel.getByLabel(`Figures of ${NAME} now`).innerText()).toMatch(/in .+\/s, out .+\/s/);
      await page.screenshot({ path: join(shots, 'inspector-traffic-light.png') });
      publishScreenshot(join(shots, 'inspector-traffic-light.png'), join(docs, 'inspector-traffic.png'));
      load.kill();
      load = undefined;
      await inspector.getByRole('button', { name: 'Back to proxies' }).click();
      await proxiesTable(page).waitFor();
    },
    8 * 60_000,
  );

  it('opens the inspector: the metadata fields and the address with its source', async () => {
    await proxiesTable(page)
      .getByRole('button', { name: `Inspect ${NAME}` })
      .click();
    const inspector = page.getByRole('region', { name: `Inspector for ${NAME}` });
    await inspector.waitFor();
    const overview = inspector.getByRole('tabpanel', { name: 'Overview' });
    await overview.getByText(image.sha256).waitFor();
    const text = await overview.innerText();
    for (const field of ['Name', 'Host', 'Owner', 'Machine type', 'Image', 'Port', 'Created', 'Spec hash'])
      expect(text).toContain(field);
    expect(text).toMatch(/192\.168\.150\.\d+/);
    expect(text).toMatch(/lease|agent|arp/);
  });

  it(
    'shows the serial console in the inspector: the guest login prompt, and input reaches it',
    async () => {
      const inspector = page.getByRole('region', { name: `Inspector for ${NAME}` });
      await inspector.getByRole('tablist').getByRole('tab', { name: 'Console', exact: true }).click();
      const panel = inspector.getByRole('region', { name: `Serial console of ${NAME}` });
      // A second tab of the same app, which opens no console: the session's output must never reach it (issue 14.4).
      const other = await app.context.newPage();
      await other.goto(page.url());
      await other.waitForFunction('Boolean(window.egress)');
      await other.evaluate(
        "window.__consoleEvents = []; for (const e of ['console:data', 'console:closed']) window.egress.on(e, (p) => window.__consoleEvents.push(e));",
      );
      await panel.getByRole('button', { name: `Connect to the console of ${NAME}` }).click();
      const status = panel.getByRole('status');
      await expect.poll(() => status.innerText(), { timeout: 30_000 }).toMatch(/^Connected to /);
      // The getty printed its prompt before we came: Enter makes it ask again, into the terminal.
      const rows = panel.locator('.xterm-rows');
      await panel.getByRole('region', { name: `Terminal of ${NAME}` }).click();
      await page.keyboard.press('Enter');
      await expect.poll(() => rows.innerText(), { timeout: 120_000 }).toMatch(new RegExp(`${NAME} login:`));
      // Ctrl+] leaves the terminal (it keeps Tab and Escape for the guest): the focus goes to the bar's button.
      await page.keyboard.press('Control+BracketRight');
      await expect
        .poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label')"))
        .toBe(`Disconnect from the console of ${NAME}`);
      await page.screenshot({ path: join(shots, 'inspector-console-light.png') });
      publishScreenshot(join(shots, 'inspector-console-light.png'), join(docs, 'inspector-console.png'));
      await panel.getByRole('button', { name: `Disconnect from the console of ${NAME}` }).click();
      await expect.poll(() => status.innerText()).toBe('Closed: disconnected');
      expect(await other.evaluate('window.__consoleEvents')).toEqual([]);
      await other.close();
      // Escape leaves the terminal alone; the inspector's Back button returns to the table.
      await inspector.getByRole('button', { name: 'Back to proxies' }).click();
      await proxiesTable(page).waitFor();
    },
    5 * 60_000,
  );

  it(
    'deletes it through the confirmation, leaving the host as it was',
    async () => {
      const table = proxiesTable(page);
      await table.getByRole('checkbox', { name: `Select ${NAME}` }).check();
      await page.getByRole('toolbar', { name: 'Proxy actions' }).getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog', { name: `Delete ${NAME}?` })
        .getByRole('button', { name: 'Delete' })
        .click();
      await page.getByRole('heading', { name: 'Launch your first proxy' }).waitFor({ timeout: 2 * 60_000 });
      await nav('Tasks').click();
      await page
        .getByRole('list', { name: 'Tasks' })
        .getByRole('listitem', { name: `Delete ${NAME}` })
        .getByText(/^Done/)
        .waitFor({ timeout: 60_000 });
      const after = await hypervisorState(client);
      expect(after.domains).toEqual(before.domains);
      expect(after.volumes).toEqual([...new Set([...before.volumes, baseVolumeName(image.sha256, 'qcow2')])].sort());
    },
    3 * 60_000,
  );

  it('logs no CSP violation or page error', () => {
    expect(app.errors).toEqual([]);
  });
});
