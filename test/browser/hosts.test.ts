/**
 * The Hosts view in Debian's Chromium, through the real `egress-desk serve`, against the
 * real sshd (127.0.0.1:2222) and libvirtd of the test environment: starting from the local
 * host only, add an SSH host (inline validation first: a bad name, a duplicate, network
 * and bridge together), confirm its host key by fingerprint, see its facts; edit it to use
 * the encrypted key and answer the passphrase prompt (a wrong one first); remove it through
 * the confirmation; then a host whose known_hosts records another key is refused, with an
 * explanation and no way to trust it. HOME is a temporary directory: the app's known_hosts
 * is HOME/.ssh/known_hosts there, and /root/.ssh is never written.
 */
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp, testConfig } from './app-page.js';
import { publishScreenshot } from './screenshots.js';
import { nav } from './page-objects.js';

const env = testEnv();
const SSH_HOST = 'egtest-hosts-ssh';
const MISMATCH_HOST = 'egtest-hosts-mm';

let home: string;
let app: AppPage;
let page: Page;
/** The real user's known_hosts before the run: it must be the same after. */
const realKnownHosts = join(homedir(), '.ssh', 'known_hosts');
const realBefore = existsSync(realKnownHosts) ? readFileSync(realKnownHosts, 'utf8') : undefined;

const hostsRegion = () => page.getByRole('region', { name: 'Hosts' });
const card = (name: string) => hostsRegion().getByRole('article', { name });

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  publishScreenshot(join(SHOTS, `${name}.png`), join(DOCS_SHOTS, `${name}.png`));
}

/** Fills the host dialog's fields by label (empty values are left alone). */
async function fill(dialog: Locator, fields: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(fields))
    await dialog.getByRole('textbox', { name: label, exact: true }).fill(value);
}

async function removeHost(name: string): Promise<void> {
  await card(name)
    .getByRole('button', { name: `Remove ${name}` })
    .click();
  const confirm = page.getByRole('dialog', { name: `Remove host ${name}?` });
  await confirm.getByText('nothing on the host is touched').waitFor();
  await confirm.getByRole('button', { name: 'Remove host' }).click();
  await confirm.waitFor({ state: 'detached' });
  await hostsRegion()
    .getByRole('status')
    .filter({ hasText: `${name} was removed from the config; nothing on the host was touched` })
    .waitFor();
  await card(name).waitFor({ state: 'detached' });
}

beforeAll(async () => {
  app = await openApp({ prefix: 'egress-hosts-view-', config: () => testConfig(env) });
  ({ home, page } = app);
});

afterAll(async () => {
  await app?.close();
});

describe('browser: the Hosts view against the real sshd', () => {
  it('starts with the local host only, connected', async () => {
    await nav(page, 'Hosts').click();
    await card('local').getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
    await expect(hostsRegion().getByRole('article').count()).resolves.toBe(1);
  });

  it('adds an SSH host, with inline validation for a bad name, a duplicate and network plus bridge first', async () => {
    await hostsRegion()
      .getByRole('toolbar', { name: 'Host actions' })
      .getByRole('button', { name: 'Add host' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Add a host' });
    await dialog.waitFor();
    const submit = dialog.getByRole('button', { name: 'Add host' });
    await expect(submit.isDisabled()).resolves.toBe(true);

    await fill(dialog, { Name: 'Bad_Name' });
    await dialog.getByRole('alert').filter({ hasText: 'kvm.hosts[1].name: must be a lowercase DNS label' }).waitFor();
    await expect(dialog.getByRole('textbox', { name: 'Name', exact: true }).getAttribute('aria-invalid')).resolves.toBe(
      'true',
    );
    await fill(dialog, { Name: 'local' });
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'kvm.hosts[1].name: duplicate host name "local" (also kvm.hosts[0])' })
      .waitFor();

    await fill(dialog, {
      Name: SSH_HOST,
      Address: '127.0.0.1',
      'SSH user': 'root',
      'SSH port': env.EGRESS_TEST_SSH_PORT,
      'Identity file': env.EGRESS_TEST_SSH_KEY,
      'Storage pool': env.EGRESS_TEST_POOL,
      Network: env.EGRESS_TEST_NETWORK,
      Bridge: 'br0',
    });
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'kvm.hosts[1].bridge: set either network or bridge, not both' })
      .waitFor();
    await expect(submit.isDisabled()).resolves.toBe(true);
    await dialog.getByText(/One problem to fix first: kvm\.hosts\[1\]\.bridge/).waitFor();
    await shot('hosts-add');

    await fill(dialog, { Bridge: '' });
    await expect(dialog.getByRole('alert').count()).resolves.toBe(0);
    await expect(submit.isDisabled()).resolves.toBe(false);
    await submit.click();
    await dialog.waitFor({ state: 'detached' });
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toContain(SSH_HOST);
  });

  it('shows the unknown host key with its SHA256 fingerprint; trusting it connects and shows the facts', async () => {
    const host = card(SSH_HOST);
    const prompt = host.getByRole('alertdialog', { name: `Is this the host key of ${SSH_HOST}?` });
    await prompt.waitFor({ timeout: 60_000 });
    await expect(prompt.locator('.fingerprint code').innerText()).resolves.toBe(env.EGRESS_TEST_HOST_KEY_SHA256);
    await shot('hosts-key');
    await prompt.getByRole('button', { name: 'Trust this key' }).click();
    await host.getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
    await host.getByText(/libvirt \d+\.\d+/).waitFor({ timeout: 30_000 });
    expect(await host.innerText()).toContain(env.EGRESS_TEST_POOL);
    // Recorded in the temporary HOME's known_hosts.
    const [, , key] = readFileSync(env.EGRESS_TEST_KNOWN_HOSTS, 'utf8').trim().split(' ');
    expect(readFileSync(join(home, '.ssh', 'known_hosts'), 'utf8')).toContain(key!);
  });

  it('edits the host to use the encrypted key: the passphrase prompt refuses a wrong one, then connects and remembers', async () => {
    await card(SSH_HOST)
      .getByRole('button', { name: `Edit ${SSH_HOST}` })
      .click();
    const dialog = page.getByRole('dialog', { name: `Edit host ${SSH_HOST}` });
    await expect(dialog.getByRole('textbox', { name: 'Identity file', exact: true }).inputValue()).resolves.toBe(
      env.EGRESS_TEST_SSH_KEY,
    );
    await fill(dialog, { 'Identity file': env.EGRESS_TEST_SSH_KEY_ENCRYPTED });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toContain(env.EGRESS_TEST_SSH_KEY_ENCRYPTED);

    const prompt = card(SSH_HOST).getByRole('form', { name: `Passphrase needed for ${SSH_HOST}` });
    await prompt.waitFor({ timeout: 60_000 });
    const remember = prompt.getByRole('checkbox', { name: 'Remember it' });
    await prompt
      .getByText(`Remembered passphrases are stored in ${join(home, 'secrets.json')}, readable only by you.`)
      .waitFor();
    await prompt.getByLabel(`Passphrase for ${env.EGRESS_TEST_SSH_KEY_ENCRYPTED}`).fill('not-the-passphrase');
    await prompt.getByRole('button', { name: 'Unlock and connect' }).click();
    await prompt
      .getByRole('alert')
      .filter({ hasText: `wrong passphrase for ${env.EGRESS_TEST_SSH_KEY_ENCRYPTED}` })
      .waitFor({ timeout: 30_000 });
    await shot('hosts-passphrase');

    await prompt.getByLabel(`Passphrase for ${env.EGRESS_TEST_SSH_KEY_ENCRYPTED}`).fill(env.EGRESS_TEST_SSH_PASSPHRASE);
    await remember.check();
    await prompt.getByRole('button', { name: 'Unlock and connect' }).click();
    await card(SSH_HOST).getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
    await card(SSH_HOST)
      .getByText(/libvirt \d+\.\d+/)
      .waitFor({ timeout: 30_000 });
    const secrets = join(home, 'secrets.json');
    expect(statSync(secrets).mode & 0o777).toBe(0o600);
    expect(readFileSync(secrets, 'utf8')).toContain(env.EGRESS_TEST_SSH_KEY_ENCRYPTED);
  });

  it('removes the host through the confirmation dialog', async () => {
    await removeHost(SSH_HOST);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).not.toContain(SSH_HOST);
  });

  it('refuses a host whose known_hosts records another key, explaining why, with no trust button', async () => {
    copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS_MISMATCH, join(home, '.ssh', 'known_hosts'));
    await hostsRegion().getByRole('button', { name: 'Add host' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a host' });
    await fill(dialog, {
      Name: MISMATCH_HOST,
      Address: '127.0.0.1',
      'SSH user': 'root',
      'SSH port': env.EGRESS_TEST_SSH_PORT,
      'Identity file': env.EGRESS_TEST_SSH_KEY,
    });
    await dialog.getByRole('button', { name: 'Add host' }).click();
    await dialog.waitFor({ state: 'detached' });
    const host = card(MISMATCH_HOST);
    const refused = host
      .getByRole('alert')
      .filter({ hasText: `Connection refused: the host key of ${MISMATCH_HOST} has changed` });
    await refused.waitFor({ timeout: 60_000 });
    expect(await refused.innerText()).toContain(env.EGRESS_TEST_HOST_KEY_SHA256);
    expect(await refused.innerText()).toContain('has CHANGED');
    await expect(host.getByRole('button', { name: /trust/i }).count()).resolves.toBe(0);
    await host.getByText('refused: host key changed').waitFor();
    await removeHost(MISMATCH_HOST);
  });

  it('never touched the real ~/.ssh, and logged no console error or CSP violation', () => {
    expect(existsSync(realKnownHosts) ? readFileSync(realKnownHosts, 'utf8') : undefined).toBe(realBefore);
    expect(app.errors).toEqual([]);
  });
});
