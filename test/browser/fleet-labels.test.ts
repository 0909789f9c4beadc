/**
 * Running a fleet in the table (issue 16): proxies launched from the command line with
 * labels and an expiry reach the open page (lifecycle events, no reload), are filtered by
 * `env=…` in the filter box (exactly: env=prod is not env=dev), and show their labels and
 * the countdown. Real `egress-desk serve`, Chromium, libvirtd.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type LibvirtClient, findVolume } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, systemClient, testPool } from '../support/libvirt.js';
import { tinyImage } from '../support/provider.js';
import { runCliProcess } from '../support/cli.js';
import { testEnv } from '../support/env.js';
import { type AppPage, openApp, testConfig } from './app-page.js';

const env = testEnv();
const PROD = 'egtest-fleet-p';
const DEV = 'egtest-fleet-d';

let home: string;
let sha256: string;
let ownBase = false;
let app: AppPage;
let page: Page;
let client: LibvirtClient | undefined;

const table = () => page.getByRole('table', { name: 'Proxies' });
const row = (name: string) => table().getByRole('row', { name: new RegExp(`\\b${name}\\b`) });

async function cli(...args: string[]): Promise<string> {
  const r = await runCliProcess(['--config', join(home, 'config.yaml'), 'proxies', ...args], { HOME: home, EGRESS_DESK_HOME: home });
  if (r.code !== 0) throw new Error(`proxies ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

async function cleanUp(): Promise<void> {
  client ??= await systemClient();
  await removeProxy(client, PROD);
  await removeProxy(client, DEV, ownBase ? [baseVolumeName(sha256, 'qcow2')] : []);
}

beforeAll(async () => {
  app = await openApp({
    prefix: 'egress-fleet-',
    config: (dir) => {
      const image = tinyImage(dir);
      sha256 = image.sha256;
      return testConfig(env, { images: [`tiny: { url: "file://${image.path}", sha256: ${image.sha256} }`], defaults: '{ machineType: tiny, image: tiny }' });
    },
  });
  ({ home, page } = app);
  await cleanUp();
  ownBase = (await findVolume(client!, await testPool(client!), baseVolumeName(sha256, 'qcow2'))) === null;
  await page.getByRole('heading', { name: 'Launch your first proxy' }).or(table()).waitFor({ timeout: 60_000 });
});

afterAll(async () => {
  await app?.close();
  if (sha256) await cleanUp().catch(() => undefined);
  await client?.close();
});

describe('labels and expiry in the table, against the real libvirtd', () => {
  it('filters by env=…, shows the labels and the countdown', async () => {
    await cli('launch', PROD, '--host', 'local', '--label', 'env=prod', '--ttl', '8h');
    await cli('launch', DEV, '--host', 'local', '--label', 'env=dev');
    const filter = page.getByRole('searchbox', { name: 'Filter proxies' });
    await filter.fill('env=prod');
    await row(PROD).getByText('env=prod', { exact: true }).waitFor({ timeout: 60_000 });
    await row(PROD).getByText(/⏱ 7h 5\dm left/).waitFor();
    await row(DEV).waitFor({ state: 'detached' });
    await filter.fill('env=dev');
    await row(DEV).getByText('env=dev', { exact: true }).waitFor();
    await row(PROD).waitFor({ state: 'detached' });
  }, 180_000);
});
