/**
 * Launch many and Replace from the app (issue 16), on the tiny image (an empty disk: domains
 * run but never answer, so nothing becomes ready). Launch N: the dialog's count and name
 * pattern start one task with a row per proxy; a name that already exists with another spec
 * fails alone (its row says why) while the others go on; Cancel removes only the unfinished
 * ones, never the proxy the failed row collided with. Replace: from the table, the new domain
 * (the name's second domain name) appears beside the old one, marked as the replacement;
 * cancelling the task in Tasks removes it and the old one runs on untouched.
 * Real `egress-desk serve`, Chromium, libvirtd.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { findDomainByName } from '../../electron/libvirt/index.js';
import { alternateInstanceId, instanceId } from '../../electron/services/provider/kvm/names.js';
import { testEnv } from '../support/env.js';
import { useTinyApp } from './app-page.js';
import { proxiesTable } from './page-objects.js';

const env = testEnv();
const PATTERN = 'egtest-many-{n}';
const MANY = ['egtest-many-1', 'egtest-many-2', 'egtest-many-3'];
const OLD = 'egtest-swap';

const lane = useTinyApp(env, 'egress-fleet-replace-', [...MANY, OLD]);
let page: Page;
beforeAll(() => {
  ({ page } = lane);
});

const exists = async (domain: string): Promise<boolean> => (await findDomainByName(lane.client, domain)) !== null;

describe('launch many and replace, against the real backend', () => {
  it('Launch 3: a row per proxy, one conflict fails alone, Cancel removes only the unfinished', async () => {
    // egtest-many-2 exists with another spec: its launch in the batch is a conflict.
    await lane.cli('launch', MANY[1]!, '--host', 'local', '--port', '8081');
    await page.getByRole('button', { name: 'Launch', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Launch a proxy' });
    await dialog.getByRole('textbox', { name: 'How many' }).fill('3');
    await dialog.getByRole('textbox', { name: 'Name' }).fill('egtest-many');
    await dialog
      .getByRole('alert')
      .getByText(/needs \{n\}/)
      .waitFor();
    await dialog.getByRole('textbox', { name: 'Name' }).fill(PATTERN);
    await dialog.getByLabel('Placement').selectOption('hosts');
    await dialog.getByRole('textbox', { name: 'Hosts, in turn' }).fill('local');
    await dialog.getByRole('button', { name: 'Launch 3' }).click();
    const progress = page.getByRole('dialog', { name: /Launch 3 proxies/ });
    const rows = progress.getByRole('list', { name: 'Proxies being launched' });
    await rows.getByRole('listitem', { name: `${MANY[1]}: failed` }).waitFor({ timeout: 60_000 });
    expect(await rows.getByRole('listitem', { name: `${MANY[1]}: failed` }).textContent()).toMatch(
      /already exists on host local with a different spec/,
    );
    // The other two are under way: their domains exist (they wait for an address that never comes).
    for (const n of [MANY[0]!, MANY[2]!]) await rows.getByRole('listitem', { name: `${n}: running` }).waitFor();
    await expect
      .poll(async () => (await exists(instanceId(MANY[0]!))) && (await exists(instanceId(MANY[2]!))), {
        timeout: 60_000,
      })
      .toBe(true);
    await progress.getByRole('button', { name: 'Cancel the unfinished' }).click();
    await progress
      .getByRole('status')
      .getByText(/Cancelled: 0 finished and kept/)
      .waitFor({ timeout: 60_000 });
    expect(await exists(instanceId(MANY[0]!))).toBe(false);
    expect(await exists(instanceId(MANY[2]!))).toBe(false);
    // The proxy the conflict named is someone's, not the batch's: it stays.
    expect(await exists(instanceId(MANY[1]!))).toBe(true);
    await progress.getByRole('button', { name: 'Close' }).click();
    expect(lane.app.errors).toEqual([]);
  }, 240_000);

  it('Replace from the table: the replacement appears beside the old one; cancelled in Tasks, it goes and the old one runs on', async () => {
    await lane.cli('launch', OLD, '--host', 'local');
    const oldId = (await findDomainByName(lane.client, instanceId(OLD)))!.id;
    const table = proxiesTable(page);
    // The row's own ↻ sits in the Actions column, beyond the table's edge at the lane's 1280 px
    // (as are Copy URL and Inspect): the selection's Replace in the toolbar is what a person sees there.
    await table.getByRole('checkbox', { name: `Select ${OLD}` }).check({ timeout: 60_000 });
    await page.getByRole('toolbar', { name: 'Proxy actions' }).getByRole('button', { name: 'Replace' }).click();
    const confirm = page.getByRole('dialog', { name: `Replace ${OLD}?` });
    await confirm.getByText(/only once it answers is the old one deleted/).waitFor();
    await confirm.getByRole('button', { name: 'Replace' }).click();
    // Both rows: the new domain marked as the replacement (a lifecycle event brings it).
    await table.getByRole('row', { name: new RegExp(`\\b${OLD}\\b.*replacement`) }).waitFor({ timeout: 60_000 });
    expect(await exists(alternateInstanceId(OLD))).toBe(true);
    await lane.app.nav('Tasks').click();
    const tasks = page.getByRole('list', { name: 'Tasks' });
    await tasks.getByRole('button', { name: `Cancel Replace ${OLD}` }).click();
    await tasks
      .getByRole('listitem', { name: new RegExp(`Replace ${OLD}`) })
      .first()
      .getByText('Cancelled.')
      .waitFor({ timeout: 60_000 });
    await expect.poll(() => exists(alternateInstanceId(OLD)), { timeout: 30_000 }).toBe(false);
    expect((await findDomainByName(lane.client, instanceId(OLD)))!.id).toBe(oldId);
    expect(lane.app.errors).toEqual([]);
  }, 240_000);
});
