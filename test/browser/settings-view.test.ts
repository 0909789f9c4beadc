/**
 * The Settings view, in Debian's Chromium through the real `egress-desk serve`: reached
 * from the sidebar and with "," ; Save stays disabled until something changes; a bad value
 * is refused under its field with the schema's message and nothing is written; values
 * saved are in settings.json (the hosts' image transfer kept as it was) and are what the
 * view shows after a reload; a change made to the file by the CLI's side is read afresh.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsPath } from '../../electron/services/settings/settings-file.js';
import { testEnv } from '../support/env.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp, testConfig } from './app-page.js';
import { publishScreenshot } from './screenshots.js';

const env = testEnv();
let app: AppPage;
let page: Page;

const hosts = {
  local: {
    imageTransfer: 'upload',
    lastTransfer: { mode: 'upload', volume: `egress-base-${'d'.repeat(64)}.qcow2`, at: '2026-12-03T10:00:00.000Z' },
  },
};

const form = () => page.getByRole('form', { name: 'Settings' });
const box = (name: string) => form().getByRole('textbox', { name, exact: true });
const tick = (name: string) => form().getByRole('checkbox', { name });
const save = () => form().getByRole('button', { name: 'Save', exact: true });
const onDisk = (): Record<string, unknown> =>
  JSON.parse(readFileSync(settingsPath(app.home), 'utf8')) as Record<string, unknown>;

async function openSettings(): Promise<void> {
  await app.nav('Settings').click();
  await form().waitFor({ timeout: 30_000 });
}

beforeAll(async () => {
  let home = '';
  app = await openApp({
    prefix: 'egress-settings-',
    config: (dir) => ((home = dir), testConfig(env)),
    // After openApp's own {autoBake: false}, before serve starts: a host's choice the view must keep.
    prepare: async () =>
      writeFileSync(settingsPath(home), `${JSON.stringify({ hosts, autoBake: false }, null, 2)}\n`, { mode: 0o600 }),
  });
  page = app.page;
});

afterAll(async () => {
  await app?.close();
});

describe('browser: the Settings view', () => {
  it('shows what is in force; Save is disabled until a change; a bad value is refused inline and nothing is written', async () => {
    await openSettings();
    await expect(tick('Bake automatically after the first launch on a host').isChecked()).resolves.toBe(false);
    await expect(tick('Replace my proxies whose health keeps failing').isChecked()).resolves.toBe(false);
    await expect(box('After failing for (minutes)').inputValue()).resolves.toBe('10');
    await expect(box('At most per hour').inputValue()).resolves.toBe('2');
    await expect(box('Check URL').inputValue()).resolves.toBe('');
    await expect(save().isDisabled()).resolves.toBe(true);
    await expect(form().getByText(settingsPath(app.home)).count()).resolves.toBe(0);
    await expect(page.getByText(settingsPath(app.home)).first().isVisible()).resolves.toBe(true);

    const before = readFileSync(settingsPath(app.home), 'utf8');
    await box('Check URL').fill('ftp://check.example/');
    await box('At most per hour').fill('0');
    await box('Every (seconds)').fill('2');
    await expect(save().isEnabled()).resolves.toBe(true);
    await save().click();
    await expect(box('Check URL').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(form().getByText('must be an http:// or https:// URL').isVisible()).resolves.toBe(true);
    await expect(form().getByText('must be at least 1 (got 0)').isVisible()).resolves.toBe(true);
    await expect(form().getByText('must be at least 5 (got 2)').isVisible()).resolves.toBe(true);
    // The message is the field's description: a screen reader reads it with the field.
    await expect(
      box('Check URL').evaluate((el) =>
        el
          .getAttribute('aria-describedby')
          ?.split(' ')
          .map((id) => document.getElementById(id)?.textContent)
          .join(' '),
      ),
    ).resolves.toContain('must be an http:// or https:// URL');
    await expect(form().getByRole('alert').innerText()).resolves.toMatch(/Not saved: some fields need fixing/);
    expect(readFileSync(settingsPath(app.home), 'utf8')).toBe(before);
    // Fixed, its message goes as the person types.
    await box('At most per hour').fill('3');
    await expect(form().getByText('must be at least 1 (got 0)').count()).resolves.toBe(0);
    await form().getByRole('button', { name: 'Discard changes' }).click();
    await expect(box('Check URL').inputValue()).resolves.toBe('');
    await expect(save().isDisabled()).resolves.toBe(true);
  });

  it('saves, says so, keeps hosts in settings.json, and shows the same after a reload', async () => {
    await openSettings();
    await box('Check URL').fill('http://127.0.0.1:9/health');
    await box('Echo URL').fill('http://127.0.0.1:9/ip');
    await box('Slow threshold (ms)').fill('750');
    await box('Every (seconds)').fill('15');
    await tick('Bake automatically after the first launch on a host').check();
    await tick('Replace my proxies whose health keeps failing').check();
    await box('After failing for (minutes)').fill('2.5');
    await box('At most per hour').fill('4');
    await save().click();
    await form().getByRole('status').filter({ hasText: 'Saved.' }).waitFor({ timeout: 15_000 });
    await expect(save().isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: join(SHOTS, 'settings.png') });
    publishScreenshot(join(SHOTS, 'settings.png'), join(DOCS_SHOTS, 'settings.png'));

    expect(onDisk()).toEqual({
      hosts,
      health: {
        checkUrl: 'http://127.0.0.1:9/health',
        echoUrl: 'http://127.0.0.1:9/ip',
        slowMs: 750,
        intervalSeconds: 15,
      },
      autoBake: true,
      autoReplace: { enabled: true, afterMinutes: 2.5, maxPerHour: 4 },
    });

    await page.reload();
    // The view is remembered over a reload; the sidebar says which it is.
    await form().waitFor({ timeout: 30_000 });
    await expect(app.nav('Settings').getAttribute('aria-current')).resolves.toBe('page');
    await expect(box('Check URL').inputValue()).resolves.toBe('http://127.0.0.1:9/health');
    await expect(box('Echo URL').inputValue()).resolves.toBe('http://127.0.0.1:9/ip');
    await expect(box('Slow threshold (ms)').inputValue()).resolves.toBe('750');
    await expect(box('Every (seconds)').inputValue()).resolves.toBe('15');
    await expect(tick('Bake automatically after the first launch on a host').isChecked()).resolves.toBe(true);
    await expect(tick('Replace my proxies whose health keeps failing').isChecked()).resolves.toBe(true);
    await expect(box('After failing for (minutes)').inputValue()).resolves.toBe('2.5');
    await expect(box('At most per hour').inputValue()).resolves.toBe('4');

    // Clearing a field means its default: the URL goes from the file, the rest stays.
    await box('Echo URL').fill('');
    await save().click();
    await form().getByRole('status').filter({ hasText: 'Saved.' }).waitFor({ timeout: 15_000 });
    expect(onDisk()).toMatchObject({ hosts, health: { checkUrl: 'http://127.0.0.1:9/health', slowMs: 750 } });
    expect((onDisk().health as Record<string, unknown>).echoUrl).toBeUndefined();
  });

  it('"," shows Settings from another view (not while typing), and the view reads the file afresh', async () => {
    writeFileSync(settingsPath(app.home), `${JSON.stringify({ hosts, health: { slowMs: 1234 } })}\n`, { mode: 0o600 });
    await app.nav('Hosts').click();
    await page.getByRole('heading', { name: 'Hosts', exact: true, level: 2 }).waitFor();
    await page.keyboard.press(',');
    await form().waitFor({ timeout: 10_000 });
    await expect(box('Slow threshold (ms)').inputValue()).resolves.toBe('1234');
    await expect(tick('Bake automatically after the first launch on a host').isChecked()).resolves.toBe(true);
    // Typed into a field, "," is a character.
    await box('Check URL').fill('http://a');
    await box('Check URL').press(',');
    await expect(box('Check URL').inputValue()).resolves.toBe('http://a,');
  });

  it('logs no page error', () => {
    expect(app.errors).toEqual([]);
  });
});
