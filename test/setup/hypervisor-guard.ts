/**
 * A setup file of the lanes that share the test environment's libvirtd (libvirt, browser,
 * guest; vitest.config.ts): each test file must leave the daemon's domains as it found
 * them. A domain the file made and left behind is removed here, and the file fails, naming
 * it. Without this, one file's leak showed up as other files' failures: a proxy left by a
 * libvirt-lane test made every browser test that expects the empty Proxies view wait for
 * it, and fail, minutes later and far from the cause.
 *
 * Each look uses a connection of its own: the file's own client may be the thing that broke.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { listAllDomains } from '../../electron/libvirt/index.js';
import { instanceVolumes } from '../../electron/services/provider/kvm/names.js';
import { removeDomain, removeVolumes, systemClient } from '../support/libvirt.js';

/** The domains the daemon has now; undefined when there is no test environment to look at. */
async function domainsNow(): Promise<Set<string> | undefined> {
  if (!existsSync(join(process.env.EGRESS_TEST_STATE ?? '/var/tmp/egress-desk-test', 'env.json'))) return undefined;
  const client = await systemClient();
  try {
    return new Set((await listAllDomains(client)).map((d) => d.name));
  } finally {
    await client.close().catch(() => undefined);
  }
}

let before: Set<string> | undefined;

// Registered before any hook of the test file: beforeAll runs first, afterAll last (hooks run as a stack).
beforeAll(async () => {
  before = await domainsNow().catch(() => undefined);
}, 60_000);

afterAll(async () => {
  if (!before) return;
  const now = await domainsNow();
  const left = [...(now ?? [])].filter((name) => !before!.has(name)).sort();
  if (left.length === 0) return;
  const client = await systemClient();
  try {
    for (const name of left) await removeDomain(client, name);
    // A proxy's overlay and seed are named for its domain (names.ts); a base volume is shared and stays.
    await removeVolumes(
      client,
      left.flatMap((name) => Object.values(instanceVolumes(name))),
    );
  } finally {
    await client.close().catch(() => undefined);
  }
  throw new Error(
    `this test file left ${left.length === 1 ? 'a domain' : 'domains'} on the test libvirtd: ${left.join(', ')} (removed now, so that later files start clean; the file's own cleanup missed ${left.length === 1 ? 'it' : 'them'})`,
  );
}, 120_000);
