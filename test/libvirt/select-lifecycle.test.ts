/**
 * `proxies stop -l` and `proxies start -l` on the real daemon (issue 16): exactly the
 * proxies with every pair of the selector change state, a proxy with only some of the
 * pairs (or none) is left as it was. Three tiny proxies (an empty disk: the guest never
 * becomes ready, and ignores ACPI, so stop forces it off after --timeout). The launches do
 * not wait, so their stderr also shows the hint that points to `proxies url NAME`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient, findDomainByName } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import type { FleetListingView } from '../../shared/proxies.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { type ProviderHome, tinyProviderHome } from '../support/provider.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const A1 = 'egtest-sel-a1';
const A2 = 'egtest-sel-a2';
/** Has `grp=a` but not this run's `run=` label: a selector needs every pair. */
const PARTIAL = 'egtest-sel-partial';
/** This run's label, so a leftover of another run is never selected. */
const RUN = `run=sel${process.pid}`;
const NAMES = [A1, A2, PARTIAL];
let client: LibvirtClient;
let sha256: string;
let cli: ProviderHome['proxies'];

async function states(): Promise<Record<string, string>> {
  const r = await cli('list', '--json');
  expect(r.code, r.stderr).toBe(0);
  const proxies = (JSON.parse(r.stdout) as FleetListingView).proxies.filter((p) => NAMES.includes(p.name));
  return Object.fromEntries(proxies.map((p) => [p.name, p.state]));
}

beforeAll(async () => {
  ({ proxies: cli, sha256 } = tinyProviderHome(env, 'egress-sel-'));
  client = await systemClient();
  for (const n of NAMES) await removeProxy(client, n);
});

afterAll(async () => {
  if (!client) return;
  for (const n of NAMES) await removeProxy(client, n);
  await removeProxy(client, NAMES[0]!, [baseVolumeName(sha256, 'qcow2')]);
  await client.close();
});

describe('start and stop by label', () => {
  it('stop -l and start -l act on exactly the proxies with every pair', async () => {
    for (const [name, labels] of [
      [A1, ['grp=a', RUN]],
      [A2, ['grp=a', RUN]],
      [PARTIAL, ['grp=a']],
    ] as const) {
      const r = await cli('launch', name, '--allow', '192.168.150.0/24', ...labels.flatMap((l) => ['--label', l]));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `not waited for readiness; print its URL once it has an address with: egress-desk proxies url ${name}\n`,
      );
    }
    expect(await states()).toEqual({ [A1]: 'running', [A2]: 'running', [PARTIAL]: 'running' });

    const stopped = await cli('stop', '-l', `grp=a,${RUN}`, '--timeout', '2');
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout.trim().split('\n').sort()).toEqual(
      [A1, A2].map((n) => `proxy ${n} did not shut down in time and was forced off`),
    );
    expect(await states()).toEqual({ [A1]: 'shutoff', [A2]: 'shutoff', [PARTIAL]: 'running' });

    // The partial one stopped by name: start -l must leave it stopped.
    expect((await cli('stop', PARTIAL, '--timeout', '2')).code).toBe(0);
    const started = await cli('start', '-l', `${RUN},grp=a`);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout.trim().split('\n').sort()).toEqual([A1, A2].map((n) => `started proxy ${n}`));
    expect(await states()).toEqual({ [A1]: 'running', [A2]: 'running', [PARTIAL]: 'shutoff' });

    // A selector nothing has: nothing changes, and it says so.
    const none = await cli('stop', '-l', `grp=b,${RUN}`);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).toMatch(/no proxy has the labels grp=b,run=sel\d+/);
    expect(await states()).toEqual({ [A1]: 'running', [A2]: 'running', [PARTIAL]: 'shutoff' });

    expect((await cli('delete', '-l', 'grp=a', '--yes')).code).toBe(0);
    for (const n of NAMES) expect(await findDomainByName(client, instanceId(n))).toBeNull();
  });
});
