/**
 * The provider against a real libvirtd (qemu:///system, the test pool and network): the
 * CLI launches a proxy from a tiny qcow2 base (no --wait: no guest needs to boot), lists,
 * inspects and deletes it, and the pool and domain list end exactly as they were.
 */
import { readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient, listAllVolumes } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId, instanceVolumes } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, removeVolumes, systemClient, testPool } from '../support/libvirt.js';
import { type ProviderHome, hypervisorState, localProviderHome, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAME = 'egtest-prov-1';
let client: LibvirtClient;
let home: string;
let sha256: string;
let before: { volumes: string[]; domains: string[] };
let cli: ProviderHome['proxies'];
const state = () => hypervisorState(client);

beforeAll(async () => {
  home = tempDir('egress-provider-');
  const image = tinyImage(home);
  sha256 = image.sha256;
  cli = localProviderHome(env, 'egress-provider-', home, { name: 'tiny', ...image }).proxies;
  client = await systemClient();
  before = await state();
});

afterAll(async () => {
  if (!client) return;
  await removeProxy(client, NAME, [baseVolumeName(sha256, 'qcow2')]);
  await client.close();
});

describe('provider on qemu:///system', () => {
  it('launch (no wait) → list → inspect → delete leaves the pool and domains as they were (plus the shared base)', async () => {
    const t0 = Date.now();
    const launched = await cli('launch', NAME, '--allow', '192.168.150.0/24', '--json');
    const coldMs = Date.now() - t0;
    expect(launched.stderr).toBe('');
    expect(launched.code).toBe(0);
    const result = JSON.parse(launched.stdout) as {
      created: boolean;
      proxy: { id: string; host: string; state: string };
      timings: Record<string, number>;
    };
    expect(result).toMatchObject({ created: true, proxy: { id: instanceId(NAME), host: 'local', state: 'running' } });
    const base = baseVolumeName(sha256, 'qcow2');
    const mid = await state();
    expect(mid.volumes).toEqual([...before.volumes, base, ...Object.values(instanceVolumes(instanceId(NAME)))].sort());
    expect(mid.domains).toEqual([...before.domains, instanceId(NAME)].sort());
    // Credentials stay on the workstation, 0600.
    expect(statSync(join(home, 'data', 'credentials.json')).mode & 0o777).toBe(0o600);

    const list = await cli('list', '--json');
    expect(list.code).toBe(0);
    const listing = JSON.parse(list.stdout) as {
      proxies: Array<{ name: string; host: string }>;
      hosts: Array<{ ok: boolean }>;
    };
    expect(listing.proxies.filter((p) => p.name === NAME)).toEqual([
      expect.objectContaining({ name: NAME, host: 'local' }),
    ]);
    expect(listing.hosts).toEqual([expect.objectContaining({ ok: true })]);

    const table = await cli('list');
    expect(table.stdout).toMatch(new RegExp(`^${NAME} +local +running +3128 +tiny +tiny`, 'm'));

    const inspect = await cli('inspect', NAME, '--json');
    expect(inspect.code).toBe(0);
    const r = JSON.parse(inspect.stdout) as {
      metadata: { name: string; image: { sha256: string } };
      domainXml: string;
      hasCredentials: boolean;
    };
    expect(r.metadata).toMatchObject({ name: NAME, image: { sha256 } });
    expect(r.domainXml).toContain('urn:egress-proxies:kvm:v1');
    expect(r.domainXml).not.toMatch(/password/i);
    expect(r.hasCredentials).toBe(true);

    // The same spec again: the existing proxy, nothing created. A different one: refused.
    const again = await cli('launch', NAME, '--allow', '192.168.150.0/24', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ created: false });
    const conflict = await cli('launch', NAME, '--port', '8080');
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/already exists on host local with a different spec/);

    const del = await cli('delete', NAME);
    expect(del.code).toBe(0);
    expect(del.stdout).toMatch(/deleted proxy egtest-prov-1 on local: domain .*-root\.qcow2.*-seed\.iso/);
    const after = await state();
    expect(after.domains).toEqual(before.domains);
    expect(after.volumes).toEqual([...before.volumes, base].sort());
    expect(JSON.parse(readFileSync(join(home, 'data', 'credentials.json'), 'utf8'))).toEqual({
      version: 1,
      proxies: {},
    });

    // Warm cache and base: the launch overhead of the provider itself.
    const warm = await cli('launch', NAME, '--allow', '192.168.150.0/24', '--json');
    const warmResult = JSON.parse(warm.stdout) as { timings: Record<string, number> };
    const overhead = Object.values(warmResult.timings).reduce((a, b) => a + b, 0);
    console.log(
      `provider lane: cold CLI launch ${coldMs} ms (timings ${JSON.stringify(result.timings)}); warm launch steps total ${overhead} ms (${JSON.stringify(warmResult.timings)})`,
    );
    expect((await cli('delete', NAME)).code).toBe(0);

    await removeVolumes(client, [base]);
    expect(await state()).toEqual(before);
  });

  it('reconcile finds and fixes a leftover instance volume; an unknown proxy is a clear error', async () => {
    const pool = await testPool(client);
    const orphan = instanceVolumes(instanceId('egtest-orphan')).seed;
    await client.call('STORAGE_VOL_CREATE_XML', {
      pool,
      xml: `<volume><name>${orphan}</name><capacity unit="bytes">1024</capacity><target><format type="raw"/></target></volume>`,
      flags: 0,
    });
    const found = await cli('reconcile', '--json');
    expect(JSON.parse(found.stdout)).toMatchObject({
      findings: expect.arrayContaining([expect.objectContaining({ kind: 'orphan-volume', object: orphan })]),
    });
    // Just made: it may be a launch under way in another process (volumes precede the domain), so --fix leaves it.
    const young = await cli('reconcile', '--fix');
    expect(young.stdout).toMatch(
      new RegExp(
        `${orphan}: volume in pool ${env.EGRESS_TEST_POOL} with no domain .*changed \\d+ s ago: a launch may be under way in another process.*\\[left alone for now\\]`,
      ),
    );
    expect(young.code).toBe(0);
    expect((await listAllVolumes(client, pool)).map((v) => v.name)).toContain(orphan);
    // An hour old (its mtime, as libvirt reports it): an orphan.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(env.EGRESS_TEST_POOL_DIR, orphan), hourAgo, hourAgo);
    const fixed = await cli('reconcile', '--fix');
    expect(fixed.stdout).toContain(`${orphan}: volume in pool ${env.EGRESS_TEST_POOL} with no domain`);
    expect(fixed.stdout).toContain('[fixed]');
    expect((await listAllVolumes(client, pool)).map((v) => v.name)).not.toContain(orphan);
    const missing = await cli('inspect', 'egtest-nothing');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no proxy named egtest-nothing/);
  });
});
