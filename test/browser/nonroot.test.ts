/**
 * The app as a workstation user who is not root: `egress-desk serve` runs as the test
 * environment's member of the libvirt group (test/env/users.sh), driven in Chromium. The
 * local host connects through polkit; a host added over SSH as that user's own SSH account
 * is trusted by its fingerprint (written to the user's known_hosts); a proxy is launched by
 * clicking (a tiny image: it boots, no guest answers), its serial console opens, and it is
 * deleted through the confirmation. Everything the app wrote belongs to the user, 0600/0700.
 */
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { hypervisorState, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { foreignOrOpenEntries, testUsers } from '../support/users.js';
import { type AppPage, openApp, testConfig } from './app-page.js';
import { fillLaunchForm, launchProgress, nav, proxiesTable, proxyRow } from './page-objects.js';

const env = testEnv();
const { member } = testUsers(env);
const NAME = 'egtest-nonroot-ui';
const SSH_HOST = 'egtest-nonroot-ssh';

let app: AppPage;
let page: Page;
let client: LibvirtClient;
let base: string;

const hostsRegion = () => page.getByRole('region', { name: 'Hosts' });
const card = (name: string) => hostsRegion().getByRole('article', { name });

async function fill(dialog: Locator, fields: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(fields))
    await dialog.getByRole('textbox', { name: label, exact: true }).fill(value);
}

beforeAll(async () => {
  client = await systemClient();
  await removeProxy(client, NAME);
  app = await openApp({
    prefix: 'egress-nonroot-ui-',
    as: member,
    config: (home) => {
      // A size of its own: this file's base volume is its own to remove.
      const image = tinyImage(home, 16 * 1024 + 3 + (process.pid % 1000) * 16);
      chmodSync(image.path, 0o600);
      base = baseVolumeName(image.sha256, 'qcow2');
      return testConfig(env, {
        images: [`tiny: { url: "file://${image.path}", sha256: ${image.sha256} }`],
        defaults: '{ machineType: tiny, image: tiny }',
      });
    },
  });
  page = app.page;
});

afterAll(async () => {
  await app?.close();
  if (client) {
    await removeProxy(client, NAME, base ? [base] : []);
    await client.close();
  }
});

describe('browser: serve as a member of the libvirt group', () => {
  it('connects to the local host through polkit', async () => {
    await nav(page, 'Hosts').click();
    await card('local').getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
    await card('local')
      .getByText(/libvirt \d+\.\d+/)
      .waitFor({ timeout: 30_000 });
  });

  it('adds a host over SSH as its own account, and trusting the key writes the user’s known_hosts', async () => {
    await hostsRegion()
      .getByRole('toolbar', { name: 'Host actions' })
      .getByRole('button', { name: 'Add host' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Add a host' });
    await fill(dialog, {
      Name: SSH_HOST,
      Address: '127.0.0.1',
      'SSH user': member.name,
      'SSH port': env.EGRESS_TEST_SSH_PORT,
      'Identity file': member.sshKey,
      'Storage pool': env.EGRESS_TEST_POOL,
      Network: env.EGRESS_TEST_NETWORK,
    });
    await dialog.getByRole('button', { name: 'Add host' }).click();
    await dialog.waitFor({ state: 'detached' });
    const prompt = card(SSH_HOST).getByRole('alertdialog', { name: `Is this the host key of ${SSH_HOST}?` });
    await prompt.waitFor({ timeout: 60_000 });
    await expect(prompt.locator('.fingerprint code').innerText()).resolves.toBe(env.EGRESS_TEST_HOST_KEY_SHA256);
    await prompt.getByRole('button', { name: 'Trust this key' }).click();
    await card(SSH_HOST).getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
    await card(SSH_HOST)
      .getByText(/libvirt \d+\.\d+/)
      .waitFor({ timeout: 30_000 });
    const knownHosts = join(app.home, '.ssh', 'known_hosts');
    const [, , key] = readFileSync(env.EGRESS_TEST_KNOWN_HOSTS, 'utf8').trim().split(' ');
    expect(readFileSync(knownHosts, 'utf8')).toContain(key!);
    expect(statSync(knownHosts).uid).toBe(member.uid);
    expect(statSync(knownHosts).mode & 0o777).toBe(0o600);

    // It reaches the same libvirtd as "local": removed again, so that the proxy below is listed once.
    await card(SSH_HOST)
      .getByRole('button', { name: `Remove ${SSH_HOST}` })
      .click();
    await page
      .getByRole('dialog', { name: `Remove host ${SSH_HOST}?` })
      .getByRole('button', { name: 'Remove host' })
      .click();
    await card(SSH_HOST).waitFor({ state: 'detached' });
  });

  it(
    'launches a proxy by clicking; it boots on qemu:///system',
    async () => {
      await nav(page, 'Proxies').click();
      const form = await fillLaunchForm(page, { name: NAME, host: 'local', allowedClients: '192.168.150.0/24' });
      await form.getByRole('button', { name: 'Launch', exact: true }).click();
      const progress = launchProgress(page, NAME);
      await progress
        .getByRole('list', { name: 'Launch steps' })
        .getByRole('listitem', { name: 'Boot the VM: done' })
        .waitFor({ timeout: 3 * 60_000 });
      expect((await hypervisorState(client)).domains).toContain(instanceId(NAME));
      // No guest answers on a tiny image: the launch goes on waiting in Tasks.
      await progress.getByRole('button', { name: 'Close (keeps running in Tasks)' }).click();
      await progress.waitFor({ state: 'detached' });
    },
    4 * 60_000,
  );

  it('opens the serial console of the proxy', async () => {
    await page.getByRole('searchbox', { name: 'Filter proxies' }).fill(NAME);
    await proxiesTable(page)
      .getByRole('button', { name: `Inspect ${NAME}` })
      .click({ timeout: 60_000 });
    const inspector = page.getByRole('region', { name: `Inspector for ${NAME}` });
    await inspector.getByRole('tablist').getByRole('tab', { name: 'Console', exact: true }).click();
    const panel = inspector.getByRole('region', { name: `Serial console of ${NAME}` });
    await panel.getByRole('button', { name: `Connect to the console of ${NAME}` }).click();
    const status = panel.getByRole('status');
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toMatch(/^Connected to /);
    await panel.getByRole('button', { name: `Disconnect from the console of ${NAME}` }).click();
    await expect.poll(() => status.innerText()).toBe('Closed: disconnected');
    await inspector.getByRole('button', { name: 'Back to proxies' }).click();
  });

  it(
    'deletes it through the confirmation',
    async () => {
      await page.getByRole('searchbox', { name: 'Filter proxies' }).fill(NAME);
      await proxiesTable(page)
        .getByRole('checkbox', { name: `Select ${NAME}` })
        .check();
      await page.getByRole('toolbar', { name: 'Proxy actions' }).getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog', { name: `Delete ${NAME}?` })
        .getByRole('button', { name: 'Delete' })
        .click();
      await proxyRow(page, NAME).waitFor({ state: 'detached', timeout: 2 * 60_000 });
      expect((await hypervisorState(client)).domains).not.toContain(instanceId(NAME));
    },
    3 * 60_000,
  );

  it('left every file it wrote to the user, 0600 files in 0700 directories; no page error', () => {
    expect(foreignOrOpenEntries(app.home, member.uid)).toEqual([]);
    expect(app.errors).toEqual([]);
  });
});
