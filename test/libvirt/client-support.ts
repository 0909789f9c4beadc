/**
 * Helpers for the RPC client's integration tests: a tiny local Dialer over the test
 * environment's unix socket (the real transports are electron/transport's), a packet tap
 * that records what the daemon actually sends, and unique `egtest-` names.
 */
import { randomBytes } from 'node:crypto';
import { createConnection, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { LibvirtClient, type ConnectOptions } from '../../electron/libvirt/client.js';
import { PacketParser } from '../../electron/libvirt/framing.js';
import type { PacketHeader } from '../../electron/libvirt/packet.js';
import type { Dialer } from '../../electron/transport/dialer.js';
import { testEnv } from '../support/env.js';

/** Headers of every packet the daemon sent on one connection, and the socket itself. */
export interface Tap {
  headers: PacketHeader[];
  socket: Socket;
}

/** A Dialer for the local libvirtd socket. `taps` collects one {@link Tap} per dialled connection. */
export function localDialer(taps?: Tap[]): Dialer {
  const path = testEnv().EGRESS_TEST_SOCKET;
  return {
    description: `unix:${path}`,
    dial: () =>
      new Promise<Duplex>((resolve, reject) => {
        const socket = createConnection(path);
        socket.once('connect', () => {
          socket.off('error', reject);
          if (taps) {
            const tap: Tap = { headers: [], socket };
            const parser = new PacketParser();
            // A second 'data' listener sees the same chunks as the client's.
            socket.on('data', (chunk: Buffer) => {
              for (const p of parser.push(chunk)) tap.headers.push(p.header);
            });
            taps.push(tap);
          }
          resolve(socket);
        });
        socket.once('error', reject);
      }),
  };
}

/** Connects to `uri` through the local socket. */
export function connect(uri: string, options: Partial<ConnectOptions> = {}, taps?: Tap[]): Promise<LibvirtClient> {
  return LibvirtClient.connect(localDialer(taps), { uri, ...options });
}

/** A name unique to this run, with the prefix every test object carries. */
export function egtestName(what: string): string {
  return `egtest-rpc-${what}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** Runs cleanup steps, ignoring "not found" and every other failure: tests clean up best-effort. */
export async function bestEffort(...steps: Array<() => Promise<unknown>>): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch {
      /* already gone, or the test failed before creating it */
    }
  }
}

/** Waits until `predicate` holds, up to `ms`, running `poll` (if any) before each check. */
export async function until(predicate: () => boolean, ms = 5_000, poll?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    await poll?.();
    if (predicate()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, poll ? 250 : 20));
  }
}

/** A domain for libvirt's test driver. */
export function testDomainXml(name: string): string {
  return `<domain type='test'><name>${name}</name><memory unit='MiB'>64</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os></domain>`;
}

/**
 * The smallest real QEMU guest: TCG, 64 MiB, no disk, one NIC on `network`. SeaBIOS
 * prints to the serial console, then the NIC's iPXE ROM tries a network boot: it takes a
 * DHCP lease (inside the test network namespace) and keeps printing, so the console always
 * has output and the network a real lease.
 */
export function qemuDomainXml(name: string, network: string): string {
  return `<domain type='qemu'>
  <name>${name}</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><bios useserial='yes' rebootTimeout='1000'/></os>
  <devices>
    <interface type='network'><source network='${network}'/><model type='virtio'/></interface>
    <serial type='pty'><target port='0'/></serial>
    <console type='pty'><target type='serial' port='0'/></console>
    <memballoon model='none'/>
  </devices>
</domain>`;
}
