/**
 * The Launch dialog's failure view, on a real failure: the config's image has a sha256
 * that its file does not have, so the real image cache refuses it at "Get the base image".
 * The dialog must name the step, show the backend's message, say what was rolled back, and
 * let the person go back to the form with their input kept; the host must be left as it
 * was (no domain, no volume); the Tasks panel keeps the failure with its message.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { systemClient } from '../support/libvirt.js';
import { hypervisorState, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { type AppPage, SHOTS, openApp, testConfig } from './app-page.js';
import { fillLaunchForm, launchForm, launchProgress } from './page-objects.js';

const env = testEnv();
const NAME = 'egtest-fail-1';
/** A digest the tiny image does not have. */
const WRONG = 'ab'.repeat(32);

let app: AppPage;
let page: Page;
let client: LibvirtClient;
let before: Awaited<ReturnType<typeof hypervisorState>>;

beforeAll(async () => {
  client = await systemClient();
  before = await hypervisorState(client);
  app = await openApp({
    prefix: 'egress-fail-',
    config: (home) =>
      testConfig(env, {
        images: [`mislabelled: { url: "file://${tinyImage(home).path}", sha256: ${WRONG} }`],
        defaults: '{ machineType: tiny, image: mislabelled }',
      }),
  });
  page = app.page;
});

afterAll(async () => {
  await app?.close();
  await client?.close();
});

describe('browser: a launch that fails', () => {
  it('names the failed step and the reason, and leaves the host as it was', async () => {
    const form = await fillLaunchForm(page, { name: NAME, host: 'local' });
    await form.getByRole('button', { name: 'Launch', exact: true }).click();
    const progress = launchProgress(page, NAME);
    const failure = progress.getByRole('alert').filter({ hasText: 'The launch failed' });
    await failure.waitFor({ timeout: 60_000 });
    const text = await failure.innerText();
    expect(text).toContain('at “Get the base image”');
    // The cache's own message: the digest it expected and the one the file has.
    expect(text).toMatch(/sha256/i);
    expect(text).toContain(WRONG);
    expect(text).toMatch(/removed|rolled back/);
    await progress
      .getByRole('list', { name: 'Launch steps' })
      .getByRole('listitem', { name: /Get the base image: failed/ })
      .waitFor();
    // No step after the failed one ran.
    await expect(progress.getByRole('listitem', { name: /Define the VM: (running|done)/ }).count()).resolves.toBe(0);
    await page.screenshot({ path: join(SHOTS, 'launch-failed-light.png') });
    expect(await hypervisorState(client)).toEqual(before);
  });

  it('goes back to the form with the input kept', async () => {
    const progress = launchProgress(page, NAME);
    await progress.getByRole('button', { name: 'Back to the form' }).click();
    const form = launchForm(page);
    await expect(form.getByRole('textbox', { name: 'Name' }).inputValue()).resolves.toBe(NAME);
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });
  });

  it('keeps the failure in the Tasks panel with its message', async () => {
    await app.nav('Tasks').click();
    const item = page.getByRole('list', { name: 'Tasks' }).getByRole('listitem', { name: `Launch ${NAME}` });
    await item.getByText(/^Failed/).waitFor({ timeout: 30_000 });
    expect(await item.innerText()).toContain(WRONG);
  });

  it('logs no CSP violation or page error', () => {
    expect(app.errors).toEqual([]);
  });
});
