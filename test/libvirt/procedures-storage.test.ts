/**
 * A tour of the procedure table against the real libvirtd, second half: storage, networks
 * and a console on qemu:///system (real volumes, the test network, a tiny TCG guest). The
 * last test checks, from the packets the daemon actually sent back, that none of this
 * half's share of the table (procedure-tour.ts) was missed; the first half is
 * procedures.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/client.js';
import { InterfaceAddressesSource } from '../../electron/libvirt/constants.js';
import { ErrorCode, isNotFound } from '../../electron/libvirt/errors.js';
import type { DhcpLease, DomainRef } from '../../electron/libvirt/types.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';
import { type Tap, bestEffort, connect, egtestName, qemuDomainXml, until } from './client-support.js';
import { STORAGE_TOUR, removeDomains, unanswered } from './procedure-tour.js';

const taps: Tap[] = [];
let qemu: LibvirtClient;
const qemuDomains: string[] = [];
const volumes: string[] = [];

beforeAll(async () => {
  qemu = await connect('qemu:///system', {}, taps);
});

afterAll(async () => {
  await removeDomains(qemu, qemuDomains);
  const pool = await qemu.call('STORAGE_POOL_LOOKUP_BY_NAME', { name: testEnv().EGRESS_TEST_POOL }).catch(() => null);
  for (const name of volumes) {
    if (pool)
      await bestEffort(async () =>
        qemu.call('STORAGE_VOL_DELETE', {
          vol: await qemu.call('STORAGE_VOL_LOOKUP_BY_NAME', { pool, name }),
          flags: 0,
        }),
      );
  }
  await qemu.close();
});

describe('storage, networks and a console on qemu:///system', () => {
  it('creates, inspects, uploads, downloads, lists and deletes a volume', async () => {
    const env = testEnv();
    const pools = await qemu.call('CONNECT_LIST_ALL_STORAGE_POOLS', { needResults: 1, flags: 0 });
    expect(pools.pools.map((p) => p.name)).toContain(env.EGRESS_TEST_POOL);
    const pool = await qemu.call('STORAGE_POOL_LOOKUP_BY_NAME', { name: env.EGRESS_TEST_POOL });
    await qemu.call('STORAGE_POOL_REFRESH', { pool, flags: 0 });
    const poolInfo = await qemu.call('STORAGE_POOL_GET_INFO', { pool });
    expect(poolInfo.state).toBe(2);
    expect(poolInfo.capacity).toBeGreaterThan(0n);

    const name = egtestName('vol');
    volumes.push(name);
    const size = 1024 * 1024;
    const xml = `<volume><name>${name}</name><capacity unit='bytes'>${size}</capacity><target><format type='raw'/></target></volume>`;
    const vol = await qemu.call('STORAGE_VOL_CREATE_XML', { pool, xml, flags: 0 });
    expect(vol).toEqual(await qemu.call('STORAGE_VOL_LOOKUP_BY_NAME', { pool, name }));
    expect(await qemu.call('STORAGE_VOL_GET_INFO', { vol })).toMatchObject({ type: 0, capacity: BigInt(size) });
    expect(await qemu.call('STORAGE_VOL_GET_PATH', { vol })).toBe(`${env.EGRESS_TEST_POOL_DIR}/${name}`);
    const volXml = await qemu.call('STORAGE_VOL_GET_XML_DESC', { vol, flags: 0 });
    expect(volXml).toContain(`<name>${name}</name>`);
    expect(volXml).toContain(`<path>${env.EGRESS_TEST_POOL_DIR}/${name}</path>`);
    const listed = await qemu.call('STORAGE_POOL_LIST_ALL_VOLUMES', { pool, needResults: 1, flags: 0 });
    expect(listed.vols.map((v) => v.name)).toContain(name);

    const data = randomBytes(size);
    expect(await qemu.uploadVolume(vol, Readable.from([data]))).toBe(size);
    const parts: Buffer[] = [];
    await qemu.downloadVolume(vol, new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }));
    expect(Buffer.concat(parts).equals(data)).toBe(true);

    // A transient dir pool over a fresh directory; libvirt copies the volume into the test pool itself.
    const stageDir = tempDir('egtest-stage-');
    const stageName = egtestName('stage');
    const stage = await qemu.call('STORAGE_POOL_CREATE_XML', {
      xml: `<pool type='dir'><name>${stageName}</name><target><path>${stageDir}</path></target></pool>`,
      flags: 0,
    });
    expect(stage.name).toBe(stageName);
    const copyName = egtestName('copy');
    volumes.push(copyName);
    const copyXml = `<volume><name>${copyName}</name><capacity unit='bytes'>${size}</capacity><allocation unit='bytes'>${size}</allocation><target><format type='raw'/></target></volume>`;
    try {
      const staged = await qemu.call('STORAGE_VOL_CREATE_XML', {
        pool: stage,
        xml: xml.replace(name, 'staged.img'),
        flags: 0,
      });
      await qemu.uploadVolume(staged, Readable.from([data]));
      const copy = await qemu.call('STORAGE_VOL_CREATE_XML_FROM', { pool, xml: copyXml, clonevol: staged, flags: 0 });
      expect(copy).toMatchObject({ pool: env.EGRESS_TEST_POOL, name: copyName });
      const copied: Buffer[] = [];
      await qemu.downloadVolume(copy, new Writable({ write: (c: Buffer, _e, cb) => (copied.push(c), cb()) }));
      expect(Buffer.concat(copied).equals(data)).toBe(true);
      await qemu.call('STORAGE_VOL_DELETE', { vol: copy, flags: 0 });
      await qemu.call('STORAGE_VOL_DELETE', { vol: staged, flags: 0 });
    } finally {
      await qemu.call('STORAGE_POOL_DESTROY', { pool: stage });
      rmSync(stageDir, { recursive: true, force: true });
    }
    expect(
      isNotFound(await qemu.call('STORAGE_POOL_LOOKUP_BY_NAME', { name: stageName }).catch((e: unknown) => e)),
    ).toBe(true);

    await qemu.call('STORAGE_VOL_DELETE', { vol, flags: 0 });
    expect(isNotFound(await qemu.call('STORAGE_VOL_LOOKUP_BY_NAME', { pool, name }).catch((e: unknown) => e))).toBe(
      true,
    );
  });

  it('lists networks and reads DHCP leases', async () => {
    const env = testEnv();
    const nets = await qemu.call('CONNECT_LIST_ALL_NETWORKS', { needResults: 1, flags: 0 });
    expect(nets.nets.map((n) => n.name)).toContain(env.EGRESS_TEST_NETWORK);
    const net = await qemu.call('NETWORK_LOOKUP_BY_NAME', { name: env.EGRESS_TEST_NETWORK });
    const leases = await qemu.call('NETWORK_GET_DHCP_LEASES', { net, mac: null, needResults: 1, flags: 0 });
    expect(leases.ret).toBe(leases.leases.length);
    for (const lease of leases.leases) expect(lease.ipaddr).toMatch(/^192\.168\./);
  });

  it('boots a tiny TCG guest: its console prints the firmware, iPXE takes a DHCP lease, the lease shows as its address', async () => {
    const env = testEnv();
    const name = egtestName('con');
    qemuDomains.push(name);
    const dom: DomainRef = await qemu.call('DOMAIN_DEFINE_XML', { xml: qemuDomainXml(name, env.EGRESS_TEST_NETWORK) });
    expect(dom.id).toBe(-1);
    const running = await qemu.call('DOMAIN_CREATE_WITH_FLAGS', { dom, flags: 0 });
    expect(running.id).toBeGreaterThan(0);
    const console = await qemu.openConsole(running, null);
    let output = '';
    console.on('data', (c: Buffer) => (output += c.toString('latin1')));
    // SeaBIOS, then iPXE's network boot attempt, print to the serial console continuously.
    await until(() => /SeaBIOS|iPXE/.test(output), 20_000);
    console.destroy();

    const mac = /<mac address='([0-9a-f:]+)'/.exec(
      await qemu.call('DOMAIN_GET_XML_DESC', { dom: running, flags: 0 }),
    )![1]!;
    const net = await qemu.call('NETWORK_LOOKUP_BY_NAME', { name: env.EGRESS_TEST_NETWORK });
    let leases: DhcpLease[] = [];
    await until(
      () => leases.length > 0,
      40_000,
      async () => {
        leases = (await qemu.call('NETWORK_GET_DHCP_LEASES', { net, mac, needResults: 1, flags: 0 })).leases;
      },
    );
    expect(leases[0]).toMatchObject({ mac, type: 0, prefix: 24, ipaddr: expect.stringMatching(/^192\.168\.150\./) });
    const ifaces = await qemu.call('DOMAIN_INTERFACE_ADDRESSES', {
      dom: running,
      source: InterfaceAddressesSource.LEASE,
      flags: 0,
    });
    expect(ifaces).toEqual([
      { name: expect.any(String), hwaddr: mac, addrs: [{ type: 0, addr: leases[0]!.ipaddr, prefix: 24 }] },
    ]);
    // Without a guest agent channel the AGENT source is refused, cleanly.
    await expect(
      qemu.call('DOMAIN_INTERFACE_ADDRESSES', { dom: running, source: InterfaceAddressesSource.AGENT, flags: 0 }),
    ).rejects.toMatchObject({
      code: ErrorCode.ARGUMENT_UNSUPPORTED,
    });

    await qemu.call('DOMAIN_DESTROY_FLAGS', { dom: running, flags: 0 });
    await qemu.call('DOMAIN_UNDEFINE_FLAGS', { dom, flags: 0 });
  }, 90_000);
});

describe('coverage', () => {
  it('the daemon answered every procedure of the storage tour at least once', async () => {
    await qemu.call('CONNECT_GET_URI');
    expect(unanswered(taps, STORAGE_TOUR)).toEqual([]);
  });
});
