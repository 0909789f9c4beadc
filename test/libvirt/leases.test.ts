/**
 * Stale DHCP leases on the real daemon (issue 14.2). A guest that changes its DHCP client
 * id (a new machine-id, a relaunch under the same name) leaves several leases on one MAC;
 * libvirt's dnsmasq hands each a different address. Here a veth inside the test namespace
 * takes those leases with busybox's udhcpc and the proxy's MAC, as guests would: the
 * listing and `proxies url` must offer only the newest, only while the domain runs, and a
 * relaunch under the same name must get a MAC the old leases do not match.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainDestroy, type LibvirtClient, findDomainByName, getDhcpLeases } from '../../electron/libvirt/index.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { type ProviderHome, tinyProviderHome } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { waitFor } from '../support/wait.js';

const env = testEnv();
const NAME = 'egtest-lease';
/** The veth pair that plays the guest's NIC; egtest- so that down.sh's namespace teardown takes it. */
const VETH = 'egtest-dh0';
const PEER = 'egtest-dh1';
let client: LibvirtClient;
let sha256: string;
let cli: ProviderHome['proxies'];

function inNetns(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync('ip', ['netns', 'exec', env.EGRESS_TEST_NETNS, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The bridge of the test network, from libvirt (never a name of this file's making). */
function bridgeOfTestNetwork(): string {
  const r = spawnSync('virsh', ['-q', '-c', 'qemu:///system', 'net-info', env.EGRESS_TEST_NETWORK], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  const bridge = /^Bridge:\s+(\S+)/m.exec(r.stdout)?.[1];
  if (!bridge) throw new Error(`network ${env.EGRESS_TEST_NETWORK} has no bridge (${r.stdout}${r.stderr})`);
  return bridge;
}

async function leasesOf(mac: string) {
  const net = await client.call('NETWORK_LOOKUP_BY_NAME', { name: env.EGRESS_TEST_NETWORK });
  return getDhcpLeases(client, net, mac);
}

/** Takes a lease for `mac` under DHCP client id `clientId` (hex, option 61), as a guest with that id would. */
async function takeLease(mac: string, clientId: string): Promise<void> {
  const before = (await leasesOf(mac)).length;
  inNetns('ip', 'link', 'set', VETH, 'address', mac);
  // The bridge port may still be learning on the first try: udhcpc retries, and so does this.
  await waitFor(
    `a DHCP lease for ${mac} with client id ${clientId}`,
    45_000,
    async () => {
      inNetns(
        'busybox',
        'udhcpc',
        '-i',
        VETH,
        '-f',
        '-q',
        '-n',
        '-t',
        '4',
        '-T',
        '1',
        '-s',
        '/bin/true',
        '-x',
        `0x3d:${clientId}`,
      );
      return (await leasesOf(mac)).length > before ? true : undefined;
    },
    500,
  );
}

async function macOf(name: string): Promise<string> {
  const dom = await findDomainByName(client, instanceId(name));
  if (!dom) throw new Error(`no domain for ${name}`);
  const xml = await client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 });
  return /<mac address=['"]([^'"]+)['"]/.exec(xml)![1]!;
}

beforeAll(async () => {
  ({ proxies: cli, sha256 } = tinyProviderHome(env, 'egress-leases-'));
  client = await systemClient();
  inNetns('ip', 'link', 'del', VETH);
  const made = inNetns('ip', 'link', 'add', VETH, 'type', 'veth', 'peer', 'name', PEER);
  expect(made.status, made.out).toBe(0);
  expect(inNetns('ip', 'link', 'set', PEER, 'master', bridgeOfTestNetwork(), 'up').status).toBe(0);
  expect(inNetns('ip', 'link', 'set', VETH, 'up').status).toBe(0);
});

afterAll(async () => {
  inNetns('ip', 'link', 'del', VETH);
  if (!client) return;
  await removeProxy(client, NAME, [baseVolumeName(sha256, 'qcow2')]);
  await client.close();
});

describe('stale DHCP leases', () => {
  it('of several leases on the proxy MAC, only the newest is listed and offered, only while it runs; a relaunch gets a new MAC', async () => {
    const launched = await cli('launch', NAME, '--allow', '192.168.150.0/24', '--json');
    expect(launched.stderr).toBe('');
    expect(launched.code).toBe(0);
    const mac = await macOf(NAME);

    // Three "instances" of the guest, one after another (lease expiries are in seconds: a second apart).
    for (const clientId of ['01e1', '01e2', '01e3']) {
      await takeLease(mac, clientId);
      await new Promise((r) => setTimeout(r, 1_100));
    }
    const raw = await leasesOf(mac);
    expect(new Set(raw.map((l) => l.ipaddr)).size).toBeGreaterThanOrEqual(3);
    const newest = [...raw].sort((a, b) => Number(b.expirytime) - Number(a.expirytime))[0]!.ipaddr;

    const list = JSON.parse((await cli('list', '--json')).stdout) as {
      proxies: Array<{ name: string; addresses: Array<{ address: string; source: string }> }>;
    };
    expect(list.proxies.find((p) => p.name === NAME)!.addresses.map((a) => [a.address, a.source])).toEqual([
      [newest, 'lease'],
    ]);
    const inspect = JSON.parse((await cli('inspect', NAME, '--json')).stdout) as {
      addresses: Array<{ address: string }>;
    };
    expect(inspect.addresses.map((a) => a.address)).toEqual([newest]);
    const url = await cli('url', NAME);
    expect(url.code).toBe(0);
    expect(url.stdout.trim()).toMatch(new RegExp(`^http://[^@\\s]+@${newest.replace(/\./g, '\\.')}:3128$`));

    // Stopped: its leases are someone else's to take; nothing is shown or offered.
    const dom = (await findDomainByName(client, instanceId(NAME)))!;
    await client.call('DOMAIN_DESTROY_FLAGS', { dom, flags: DomainDestroy.DEFAULT });
    const stopped = JSON.parse((await cli('list', '--json')).stdout) as typeof list;
    expect(stopped.proxies.find((p) => p.name === NAME)!.addresses).toEqual([]);
    const noUrl = await cli('url', NAME);
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toMatch(/has no current address: it is not running/);

    // Deleted and launched again under the same name: a new MAC, which none of the old leases match.
    expect((await cli('delete', NAME)).code).toBe(0);
    expect((await cli('launch', NAME, '--allow', '192.168.150.0/24', '--json')).code).toBe(0);
    const again = await macOf(NAME);
    expect(again).not.toBe(mac);
    const relisted = JSON.parse((await cli('list', '--json')).stdout) as typeof list;
    expect(relisted.proxies.find((p) => p.name === NAME)!.addresses).toEqual([]);
    expect((await cli('delete', NAME)).code).toBe(0);
  });
});
