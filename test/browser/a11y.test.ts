/**
 * axe-core over every view and dialog of the renderer, in light and dark, in Debian's
 * Chromium through the real `egress-desk serve` against the test environment: zero
 * violations, WCAG 2.x A/AA, axe's best practices, and its label-in-name check (WCAG
 * 2.5.3, experimental in axe: a control's accessible name contains its visible text).
 * The Proxies table is filled, and the inspector answered, by replacing those two answers
 * on the wire (bench/browser/fake-listing.ts: the product build, unchanged); everything
 * else is the real backend. Dialogs are opened and cancelled, never confirmed (Delete,
 * Replace, the Launch dialog for one proxy and for several). The fleet
 * summary, the inspector's Traffic tab (uPlot charts) and the hosts' meters are on the tour.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeInspection, fakeProxies, routeAnswers } from '../../bench/browser/fake-listing.js';
import { tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { type AppPage, openApp, testConfig } from './app-page.js';
import { type Finding, audit } from './axe-audit.js';
import { nav, proxiesTable } from './page-objects.js';
import { openSecondPage } from './second-page.js';

const env = testEnv();
const proxies = fakeProxies(3);

let app: AppPage;

/** Every place of the app a person can reach, with how to get there from a page on the Proxies table. */
async function tour(page: Page, theme: string): Promise<Record<string, Finding[]>> {
  const found: Record<string, Finding[]> = {};
  const check = async (what: string) => {
    const findings = await audit(page);
    if (findings.length) found[`${theme}: ${what}`] = findings;
  };
  const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });
  const heading = (name: string) => page.getByRole('heading', { name, exact: true, level: 2 });
  /** Opens a dialog or form, checks it, and closes it with Escape (nothing is ever confirmed). */
  const visit = async (opener: Locator, opened: Locator, what: string) => {
    await opener.click();
    await opened.waitFor();
    await check(what);
    await page.keyboard.press('Escape');
    await opened.waitFor({ state: 'detached' });
  };

  // Proxies: the table, a row selected, the delete confirmation, the Launch dialog.
  await nav(page, 'Proxies').click();
  const table = proxiesTable(page);
  await table.getByRole('row', { name: /bulk-0001/ }).waitFor({ timeout: 60_000 });
  await check('Proxies');
  await table.getByRole('checkbox', { name: 'Select bulk-0001' }).check();
  await check('Proxies, a row selected');
  await page
    .getByRole('toolbar', { name: 'Proxy actions' })
    .getByRole('button', { name: 'Delete', exact: true })
    .click();
  await dialog(/^Delete bulk-0001/).waitFor();
  await check('Delete confirmation');
  await dialog(/^Delete bulk-0001/)
    .getByRole('button', { name: 'Cancel' })
    .click();
  await page
    .getByRole('toolbar', { name: 'Proxy actions' })
    .getByRole('button', { name: 'Replace', exact: true })
    .click();
  await dialog('Replace bulk-0001?').waitFor();
  await check('Replace confirmation');
  await dialog('Replace bulk-0001?').getByRole('button', { name: 'Cancel' }).click();
  await dialog('Replace bulk-0001?').waitFor({ state: 'detached' });
  await table.getByRole('checkbox', { name: 'Select bulk-0001' }).uncheck();
  await page
    .getByRole('toolbar', { name: 'Proxy actions' })
    .getByRole('button', { name: 'Launch', exact: true })
    .click();
  const launch = dialog('Launch a proxy');
  await launch.waitFor();
  await check('Launch dialog');
  await launch.getByRole('textbox', { name: 'Name' }).fill('Bad_Name');
  await launch.getByRole('textbox', { name: /Allowed clients/ }).fill('10.0.0.0/33');
  await launch.getByRole('alert').first().waitFor();
  await check('Launch dialog, invalid fields');
  // Launch many: How many above 1 brings Placement (and, for a list of hosts, its field).
  await launch.getByRole('textbox', { name: 'How many' }).fill('3');
  await launch.getByRole('combobox', { name: 'Placement' }).selectOption('hosts');
  await launch.getByRole('textbox', { name: 'Hosts, in turn' }).waitFor();
  await check('Launch dialog, several proxies');
  await page.keyboard.press('Escape');
  await launch.waitFor({ state: 'detached' });

  // The inspector, each tab but Console (a real guest's: the guest lane's browser test).
  await table.getByRole('button', { name: 'Inspect bulk-0001', exact: true }).click();
  const inspector = page.getByRole('region', { name: 'Inspector for bulk-0001' });
  for (const tab of ['Overview', 'Traffic', 'Domain XML', 'Seed']) {
    await inspector.getByRole('tab', { name: tab, exact: true }).click();
    await inspector.getByRole('tabpanel').waitFor();
    await check(`Inspector, ${tab}`);
  }
  await inspector.getByRole('button', { name: 'Back to proxies' }).click();
  // A proxy that is gone: inspect answers ProxyNotFoundError from the real backend.
  await table.getByRole('button', { name: 'Inspect bulk-0002', exact: true }).click();
  await page.getByRole('region', { name: 'Inspector for bulk-0002' }).getByRole('alert').waitFor({ timeout: 30_000 });
  await check('Inspector, proxy gone');

  // Hosts: the local host connected, its add, edit and remove dialogs.
  await nav(page, 'Hosts').click();
  await page
    .getByRole('article', { name: 'local' })
    .getByText(/libvirt \d/)
    .waitFor({ timeout: 60_000 });
  await check('Hosts');
  await visit(
    page.getByRole('toolbar', { name: 'Host actions' }).getByRole('button', { name: 'Add host' }),
    dialog(/host/i),
    'Add host dialog',
  );
  await visit(page.getByRole('button', { name: 'Edit local', exact: true }), dialog(/local/), 'Edit host dialog');
  await visit(page.getByRole('button', { name: 'Remove local', exact: true }), dialog(/local/), 'Remove host dialog');

  // Images & machine types: the tables, the add forms, the remove dialog.
  await nav(page, 'Images & machine types').click();
  await heading('Images & machine types').waitFor();
  const types = page.getByRole('region', { name: 'Machine types' });
  await types.getByRole('row', { name: /medium/ }).waitFor({ timeout: 30_000 });
  await check('Images & machine types');
  const images = page.getByRole('region', { name: 'Images' });
  await visit(
    types.getByRole('button', { name: 'Add machine type' }),
    types.getByRole('group', { name: 'New machine type' }),
    'Add machine type form',
  );
  await visit(
    images.getByRole('button', { name: 'Add image' }),
    images.getByRole('group', { name: 'New image' }),
    'Add image form',
  );
  // Its Checksum file field with a message under it (a scheme the backend refuses; nothing is read).
  await images.getByRole('button', { name: 'Add image' }).click();
  const newImage = images.getByRole('group', { name: 'New image' });
  await newImage.getByRole('textbox', { name: 'Checksum file', exact: true }).fill('ftp://127.0.0.1/SHA256SUMS');
  await newImage.locator('.field-error', { hasText: 'scheme ftp' }).waitFor();
  await check('Add image form, invalid checksum file');
  await page.keyboard.press('Escape');
  await newImage.waitFor({ state: 'detached' });
  await visit(
    types.getByRole('button', { name: 'Remove medium', exact: true }),
    dialog(/medium/),
    'Remove machine type dialog',
  );

  // Config: the export shown, an import previewed.
  await nav(page, 'Config').click();
  await heading('Config').waitFor();
  await page.getByRole('button', { name: 'Show export' }).click();
  await page.getByRole('textbox', { name: 'Exported config' }).waitFor({ timeout: 30_000 });
  await check('Config, export shown');
  await page
    .getByRole('textbox', { name: 'Config to import' })
    .fill('type: kvm\nkvm:\n  hosts: []\n  machineTypes: {}\n  nonsense: 1\n');
  await page.getByRole('button', { name: 'Preview import' }).click();
  await page.getByRole('alert', { name: 'Import problems' }).waitFor({ timeout: 30_000 });
  await check('Config, import problems');
  // The export itself, previewed for import: valid, so Import asks first.
  const exported = await page.getByRole('textbox', { name: 'Exported config' }).inputValue();
  await page.getByRole('textbox', { name: 'Config to import' }).fill(exported);
  await page.getByRole('button', { name: 'Preview import' }).click();
  await page
    .getByRole('button', { name: 'Import', exact: true })
    .and(page.locator(':enabled'))
    .waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await dialog('Replace the config?').waitFor();
  await check('Import confirmation');
  await dialog('Replace the config?').getByRole('button', { name: 'Cancel' }).click();

  // Gateway (off: the form, the empty members and requests).
  await nav(page, 'Gateway').click();
  await page.getByRole('form', { name: 'Gateway settings' }).waitFor();
  await check('Gateway');

  // Tasks.
  await nav(page, 'Tasks').click();
  await heading('Tasks').waitFor();
  await check('Tasks');

  // Settings: the form, then with a field refused inline (nothing is saved: the form is discarded).
  await nav(page, 'Settings').click();
  const settings = page.getByRole('form', { name: 'Settings' });
  await settings.waitFor();
  await check('Settings');
  await settings.getByRole('textbox', { name: 'Check URL' }).fill('ftp://nope');
  await settings.getByRole('button', { name: 'Save' }).click();
  await settings.getByRole('textbox', { name: 'Check URL' }).and(page.locator('[aria-invalid="true"]')).waitFor();
  await check('Settings, a field refused');
  await settings.getByRole('button', { name: 'Discard changes' }).click();
  return found;
}

beforeAll(async () => {
  app = await openApp({
    prefix: 'egress-a11y-',
    config: (dir) => {
      const image = tinyImage(dir);
      return testConfig(env, {
        machineTypes: [
          'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
          'medium: { vcpus: 2, memoryMiB: 256, diskGiB: 2 }',
        ],
        images: [`tiny: { url: "file://${image.path}", sha256: ${image.sha256} }`],
        defaults: '{ machineType: tiny, image: tiny }',
      });
    },
  });
});

afterAll(async () => {
  await app?.close();
});

describe('accessibility: axe-core over every view and dialog', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`finds nothing to fix, ${colorScheme}`, async () => {
      const { context, page } = await openSecondPage(app, colorScheme, (fresh) =>
        routeAnswers(fresh, {
          'proxies:list': () => ({ proxies, hosts: [] }),
          // bulk-0002 is left to the backend, which knows no such proxy: the inspector's "gone" state.
          'proxies:inspect': (input) => (isNamed(input, 'bulk-0001') ? fakeInspection(proxies[1]!) : undefined),
        }),
      );
      try {
        expect(await tour(page, colorScheme)).toEqual({});
      } finally {
        await context.close();
      }
    });
  }

  it('logs no CSP violation or page error', () => {
    expect(app.errors).toEqual([]);
  });
});

const isNamed = (input: unknown, name: string): boolean =>
  typeof input === 'object' && input !== null && (input as { name?: unknown }).name === name;
