/**
 * Labels on the real daemon (issue 16): set at launch, edited on the running domain through
 * DOMAIN_SET_METADATA without a restart (the domain's runtime id, which libvirt renews on
 * every start, stays), read back by a fresh listing and kept in the persistent definition
 * for the next boot; `-l` selects by them; who launched it and the expiry are recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainXml, type LibvirtClient, findDomainByName } from '../../electron/libvirt/index.js';
import { parseInstanceMetadata } from '../../electron/services/provider/kvm/xml/metadata.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import type { FleetListingView } from '../../shared/proxies.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { type ProviderHome, tinyProviderHome } from '../support/provider.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const NAME = 'egtest-labels';
let client: LibvirtClient;
let sha256: string;
let cli: ProviderHome['proxies'];

async function runtimeId(): Promise<number> {
  const dom = await findDomainByName(client, instanceId(NAME));
  if (!dom) throw new Error(`no domain for ${NAME}`);
  return dom.id;
}

async function listed(...args: string[]): Promise<FleetListingView> {
  const r = await cli('list', '--json', ...args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as FleetListingView;
}

beforeAll(async () => {
  ({ proxies: cli, sha256 } = tinyProviderHome(env, 'egress-labels-'));
  client = await systemClient();
  await removeProxy(client, NAME);
});

afterAll(async () => {
  if (!client) return;
  await removeProxy(client, NAME, [baseVolumeName(sha256, 'qcow2')]);
  await client.close();
});

describe('labels on a running proxy', () => {
  it('are edited without a restart, read back by a fresh listing and kept for the next boot; -l selects by them', async () => {
    const launched = await cli(
      'launch',
      NAME,
      '--allow',
      '192.168.150.0/24',
      '--label',
      'env=dev',
      '--label',
      'team=web',
      '--ttl',
      '8h',
      '--json',
    );
    expect(launched.code, launched.stderr).toBe(0);
    const first = await listed();
    const me = first.proxies.find((p) => p.name === NAME)!;
    expect(me).toMatchObject({ state: 'running', labels: { env: 'dev', team: 'web' }, launchedBy: first.you });
    expect(Date.parse(me.expiresAt!) - Date.now()).toBeGreaterThan(7.9 * 3600_000);
    const id = await runtimeId();
    expect(id).toBeGreaterThan(0);

    const edited = await cli('label', NAME, 'env=prod', 'tier=edge', '--remove', 'team');
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toMatch(/labels of proxy egtest-labels on \S+: env=prod,tier=edge/);

    // A fresh listing (a new process, a new connection) reads the running domain's XML.
    const after = (await listed('-l', 'env=prod')).proxies;
    expect(after.map((p) => [p.name, p.state, p.labels])).toEqual([[NAME, 'running', { env: 'prod', tier: 'edge' }]]);
    expect(after[0]).toMatchObject({ launchedBy: me.launchedBy, expiresAt: me.expiresAt, specHash: me.specHash });
    expect((await listed('-l', 'env=dev')).proxies).toEqual([]);
    expect(await runtimeId()).toBe(id);

    // The persistent definition holds the same labels: the next boot keeps them.
    const dom = (await findDomainByName(client, instanceId(NAME)))!;
    const inactive = await client.call('DOMAIN_GET_XML_DESC', { dom, flags: DomainXml.INACTIVE });
    expect(parseInstanceMetadata(inactive)?.labels).toEqual({ env: 'prod', tier: 'edge' });

    const expire = await cli('expire');
    expect(expire.stdout).toBe('no proxy has expired\n');
    const removed = await cli('delete', '-l', 'env=prod,tier=edge', '--yes');
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/^deleted proxy egtest-labels on /);
    expect(await findDomainByName(client, instanceId(NAME))).toBeNull();
  });
});
