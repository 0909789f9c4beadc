/**
 * The guest lane: a real cloud-init guest built from Debian packages boots from our
 * overlay, reads our seed and runs the proxy. Only the builders and the RPC client are
 * used to create it (no virsh), and an HTTP request through the proxy to a server inside
 * the test namespace proves it forwards. Everything it creates is removed, even on failure.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefaults } from '../../shared/config.js';
import {
  DomainDefine,
  type DomainRef,
  InterfaceAddressesSource,
  type LibvirtClient,
  findVolume,
  getDhcpLeases,
  getInterfaceAddresses,
} from '../../electron/libvirt/index.js';
import { agentExec, agentHostname, isAgentUnavailable } from '../support/qemu-agent.js';
import { renderProxy, resolveSpec } from '../../electron/services/provider/kvm/render.js';
import { buildBaseVolumeXml } from '../../electron/services/provider/kvm/xml/volume-xml.js';
import { removeDomain, removeVolumes, systemClient, testPool } from '../support/libvirt.js';
import { testEnv } from '../support/env.js';
import { guestImage, namespaceHttpServer } from '../support/guest.js';
import { waitFor } from '../support/wait.js';

const env = testEnv();
const BOOT_DEADLINE_MS = 6 * 60_000;
let client: LibvirtClient;
let image: { path: string; sha256: string; size: number };
let server: ReturnType<typeof namespaceHttpServer> | undefined;
const cleanup: { domain?: string; volumes: string[] } = { volumes: [] };

/** Runs a command inside the test namespace: the only place guest addresses may be reached from. */
function inNetns(cmd: string, args: string[], timeoutMs = 30_000): string {
  return execFileSync('ip', ['netns', 'exec', env.EGRESS_TEST_NETNS, cmd, ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
}

beforeAll(async () => {
  const guest = guestImage();
  image = { ...guest, size: statSync(guest.path).size };
  client = await systemClient();
  // A page served on the bridge address, inside the namespace: what the proxy must fetch.
  server = namespaceHttpServer(env, 18080);
}, 20 * 60_000);

afterAll(async () => {
  server?.child.kill();
  if (client) {
    if (cleanup.domain) await removeDomain(client, cleanup.domain);
    await removeVolumes(client, cleanup.volumes);
    await client.close();
  }
}, 120_000);

describe('a proxy built by our builders boots on a real guest image', () => {
  it(
    'boots, takes our hostname and seed, and forwards HTTP through tinyproxy',
    async () => {
      const pool = await testPool(client);
      // The base volume is named by digest and kept for later runs: present means uploaded.
      const baseName = `egtest-base-${image.sha256.slice(0, 16)}.qcow2`;
      let base = await findVolume(client, pool, baseName);
      if (base && Number((await client.call('STORAGE_VOL_GET_INFO', { vol: base })).allocation) === 0) base = null;
      if (!base) {
        base = await client.call('STORAGE_VOL_CREATE_XML', {
          pool,
          xml: buildBaseVolumeXml(baseName, image.size, 'qcow2'),
          flags: 0,
        });
        await client.uploadVolume(base, createReadStream(image.path), { length: BigInt(image.size) });
      }
      const basePath = await client.call('STORAGE_VOL_GET_PATH', { vol: base });

      const config = withDefaults({
        hosts: [
          {
            name: 'local',
            address: 'local',
            pool: env.EGRESS_TEST_POOL,
            network: env.EGRESS_TEST_NETWORK,
            domainType: 'qemu',
          },
        ],
        machineTypes: { small: { vcpus: 1, memoryMiB: 512, diskGiB: 4 } },
        images: { guest: { url: `file://${image.path}`, sha256: image.sha256 } },
        defaults: { machineType: 'small', image: 'guest' },
        // The test network is isolated: the image ships the agent, so nothing is installed at
        // boot (and the proxy's user-data starts it).
        vendorData: '#cloud-config\n',
      });
      const spec = resolveSpec(
        {
          name: 'egtest-guest',
          allow: ['192.168.150.0/24'],
          credentials: { username: 'egress', password: 'guest-lane-secret' },
        },
        config,
        config.hosts[0]!,
      );
      const r = renderProxy(spec, { domainType: 'qemu', basePath, createdAt: new Date() });
      cleanup.domain = r.id;
      cleanup.volumes.push(r.volumes.root, r.volumes.seed);
      await removeDomain(client, r.id);
      await removeVolumes(client, cleanup.volumes);

      await client.call('STORAGE_VOL_CREATE_XML', { pool, xml: r.overlayVolumeXml, flags: 0 });
      const seed = await client.call('STORAGE_VOL_CREATE_XML', { pool, xml: r.seedVolumeXml, flags: 0 });
      await client.uploadVolume(seed, Readable.from([r.seedIso]), { length: BigInt(r.seedIso.length) });
      const dom: DomainRef = await client.call('DOMAIN_DEFINE_XML_FLAGS', {
        xml: r.domainXml,
        flags: DomainDefine.VALIDATE,
      });
      const started = Date.now();
      await client.call('DOMAIN_CREATE', { dom });

      const net = await client.call('NETWORK_LOOKUP_BY_NAME', { name: env.EGRESS_TEST_NETWORK });
      const mac = r.domainXml.match(/<mac address="([^"]+)"/)![1]!;
      // The MAC is stable per proxy name, so leases of earlier boots may still be listed for
      // it: wait for a lease newer than this boot (dnsmasq's expiry time moves with each grant).
      const bootedAt = Math.floor(started / 1000);
      const leaseTtl = (await getDhcpLeases(client, net, mac)).map((l) => Number(l.expirytime));
      const freshLease = await waitFor('a DHCP lease for this boot', BOOT_DEADLINE_MS, async () =>
        (await getDhcpLeases(client, net, mac)).find((l) => Number(l.expirytime) > Math.max(bootedAt, ...leaseTtl)),
      );
      const ip = freshLease.ipaddr;
      const leaseAt = Date.now();
      const viaLease = await getInterfaceAddresses(client, dom, InterfaceAddressesSource.LEASE);
      expect(viaLease.flatMap((i) => i.addrs.map((a) => a.addr))).toContain(ip);

      // The agent starts early in boot, before cloud-init has applied our meta-data: wait
      // until it reports our hostname (and say what it reported if it never does).
      let seen = 'nothing';
      const hostname = await waitFor('the guest agent to report our hostname', BOOT_DEADLINE_MS, async () => {
        try {
          seen = await agentHostname(client, dom);
          return seen === 'egtest-guest' ? seen : undefined;
        } catch (err) {
          if (isAgentUnavailable(err)) return undefined;
          throw err;
        }
      }).catch((err: unknown) => {
        throw new Error(
          `${err instanceof Error ? err.message : String(err)}; the agent last reported ${JSON.stringify(seen)}`,
        );
      });
      const agentAt = Date.now();
      expect(hostname).toBe('egtest-guest');

      const status = await agentExec(
        client,
        dom,
        '/usr/bin/cloud-init',
        ['status', '--wait', '--long'],
        BOOT_DEADLINE_MS,
      );
      expect(status.stdout).toMatch(/status: done/);
      expect(status.exitCode).toBe(0);
      const viaAgent = await getInterfaceAddresses(client, dom, InterfaceAddressesSource.AGENT);
      expect(viaAgent.flatMap((i) => i.addrs.map((a) => a.addr))).toContain(ip);

      const page = await waitFor('the proxy to answer', 120_000, async () => {
        const out = inNetns('curl', [
          '-sS',
          '--max-time',
          '10',
          '-x',
          `http://egress:guest-lane-secret@${ip}:3128`,
          `http://${env.EGRESS_TEST_BRIDGE_IP}:18080/index.html`,
        ]);
        return out.includes('egress guest lane') ? out : undefined;
      });
      const proxyAt = Date.now();
      expect(page).toContain('egress guest lane');
      // Without the credentials the proxy refuses (407): BasicAuth is in force.
      const refused = inNetns('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '--max-time',
        '10',
        '-x',
        `http://${ip}:3128`,
        `http://${env.EGRESS_TEST_BRIDGE_IP}:18080/index.html`,
      ]);
      expect(refused).toBe('407');
      console.log(
        `guest lane: lease after ${((leaseAt - started) / 1000).toFixed(1)} s, agent after ${((agentAt - started) / 1000).toFixed(1)} s, proxy answering after ${((proxyAt - started) / 1000).toFixed(1)} s`,
      );
    },
    15 * 60_000,
  );
});
