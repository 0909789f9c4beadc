/**
 * "SSH settings" under an SSH host in the Hosts view, in Debian's Chromium through the real
 * `egress-desk serve`, against the test sshd: the host's entry names only an alias, and
 * ~/.ssh/config (in the test's throwaway HOME) gives its user, port and key from a `Match`
 * block, next to a `Match exec` block that is never run. The host connects through what the
 * Match block set; the section shows each setting with the file and line it came from, and
 * the `Match exec` warning is on the host's card, in the section and in the backend's log.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import { type AppPage, SHOTS, localHost, openApp, testConfig } from './app-page.js';

const env = testEnv();
const HOST = 'egtest-sshset';
const ALIAS = 'egtest-sshset-alias';

let app: AppPage;
let page: Page;
let home: string;

const card = () => page.getByRole('region', { name: 'Hosts' }).getByRole('article', { name: HOST });

beforeAll(async () => {
  app = await openApp({
    prefix: 'egress-ssh-settings-',
    config: (dir) => {
      mkdirSync(join(dir, '.ssh'), { recursive: true, mode: 0o700 });
      copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(dir, '.ssh', 'known_hosts'));
      writeFileSync(
        join(dir, '.ssh', 'config'),
        [
          'Match exec "true"', // line 1: never run; ssh would apply it
          '  User nobody-at-all',
          `Host ${ALIAS}`, // line 3
          '  HostName 127.0.0.1',
          `Match originalhost ${ALIAS}`, // line 5
          '  User root',
          `  Port ${env.EGRESS_TEST_SSH_PORT}`, // line 7
          `  IdentityFile ${env.EGRESS_TEST_SSH_KEY}`, // line 8
          '',
        ].join('\n'),
        { mode: 0o600 },
      );
      return testConfig(env, {
        hosts: [localHost(env), `{ name: ${HOST}, address: ${ALIAS}, pool: ${env.EGRESS_TEST_POOL} }`],
      });
    },
  });
  ({ page, home } = app);
});

afterAll(async () => {
  await app?.close();
});

describe('browser: SSH settings of a host resolved from ssh_config Match blocks', () => {
  it('connects through what the Match block set, and shows the Match exec warning on the card', async () => {
    await app.nav('Hosts').click();
    await card().getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
    const warnings = card().getByRole('list', { name: `SSH config warnings for ${HOST}` });
    await warnings.getByText('~/.ssh/config line 1: Match exec "true" was not run').waitFor();
  });

  it('opens "SSH settings": where it connects, as whom, the key and the known_hosts file with their origin, and the warning', async () => {
    await card().locator('summary', { hasText: 'SSH settings' }).click();
    const section = card().getByRole('region', { name: `SSH settings of ${HOST}` });
    await section.getByText(`ssh://root@127.0.0.1:${env.EGRESS_TEST_SSH_PORT}`).waitFor();
    const text = await section.innerText();
    expect(text).toContain(`address ${ALIAS}`);
    expect(text).toMatch(new RegExp(`Port\\s+${env.EGRESS_TEST_SSH_PORT} \\(~/\\.ssh/config line 7\\)`));
    expect(text).toMatch(/User\s+root \(~\/\.ssh\/config line 6\)/);
    expect(text).toMatch(/Host name\s+127\.0\.0\.1 \(~\/\.ssh\/config line 4\)/);
    const keys = section.getByRole('list', { name: `Keys of ${HOST}, in the order they are tried` });
    await expect(keys.getByRole('listitem').allInnerTexts()).resolves.toEqual([
      `${env.EGRESS_TEST_SSH_KEY} (~/.ssh/config line 8)`,
    ]);
    expect(text).toContain('~/.ssh/known_hosts');
    await section
      .getByRole('list', { name: `SSH settings warnings for ${HOST}` })
      .getByText('~/.ssh/config line 1: Match exec "true" was not run')
      .waitFor();
    await page.screenshot({ path: join(SHOTS, 'hosts-ssh-settings.png') });
  });

  it('reads ssh_config again on "Read again": an edit shows without a restart', async () => {
    const config = join(home, '.ssh', 'config');
    writeFileSync(config, readFileSync(config, 'utf8') + '  ConnectTimeout 1m30s\n');
    const section = card().getByRole('region', { name: `SSH settings of ${HOST}` });
    await section.getByRole('button', { name: `Read again the SSH settings of ${HOST}` }).click();
    await section.getByText('90 s').waitFor();
  });

  it('wrote the warning to the backend log, and the page had no errors', () => {
    const log = readFileSync(join(home, 'logs', 'egress-desk.log'), 'utf8');
    expect(log).toContain(`host ${HOST}: ssh_config: ~/.ssh/config line 1: Match exec`);
    expect(app.errors).toEqual([]);
  });
});
