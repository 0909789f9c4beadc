/**
 * The RPC client against the real libvirtd on the local socket: handshake, pipelining,
 * errors, keepalive and a connection killed from either side.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { LibvirtClient } from '../../electron/libvirt/client.js';
import { AuthType, Feature } from '../../electron/libvirt/constants.js';
import { ConnectionClosedError, ErrorCode, LibvirtError } from '../../electron/libvirt/errors.js';
import { getLibVersion, getVersion } from '../../electron/libvirt/helpers.js';
import { KeepaliveProc, MessageType, Program } from '../../electron/libvirt/packet.js';
import { type Tap, connect, egtestName, localDialer, testDomainXml, until } from './client-support.js';
import { virshVersions } from '../support/libvirt.js';

const open: LibvirtClient[] = [];
async function track(client: Promise<LibvirtClient>): Promise<LibvirtClient> {
  const c = await client;
  open.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('handshake', () => {
  it.each(['test:///default', 'qemu:///system'])('opens %s and answers basic calls', async (uri) => {
    const client = await track(connect(uri));
    expect(await client.call('CONNECT_GET_URI')).toBe(uri);
    expect(await client.call('CONNECT_GET_TYPE')).toBe(uri.startsWith('test') ? 'TEST' : 'QEMU');
    // The versions this daemon reports to virsh, not the ones of any particular machine.
    const host = virshVersions();
    expect(await getLibVersion(client)).toBe(host.daemon);
    expect(await getVersion(client)).toMatch(/^\d+\.\d+\.\d+$/);
    // Root on the unix socket is not asked to authenticate.
    expect(await client.call('AUTH_LIST')).toEqual([AuthType.NONE]);
    expect(await client.supportsFeature(Feature.REMOTE_EVENT_CALLBACK)).toBe(true);
  });

  it('lets the daemon choose the hypervisor when the name is empty (but present)', async () => {
    const client = await track(connect(''));
    expect(await client.call('CONNECT_GET_URI')).toBe('qemu:///system');
  });

  it('fails CONNECT_OPEN with an absent name, and domain calls before CONNECT_OPEN (code 1)', async () => {
    const client = LibvirtClient.fromStream(await localDialer().dial());
    open.push(client);
    await client.call('AUTH_LIST');
    await expect(client.call('DOMAIN_LOOKUP_BY_NAME', { name: 'test' })).rejects.toMatchObject({
      code: ErrorCode.INTERNAL_ERROR,
      message: expect.stringMatching(/hypervisor connection not open/),
    });
    await expect(client.call('CONNECT_OPEN', { name: null, flags: 0 })).rejects.toMatchObject({
      code: ErrorCode.INTERNAL_ERROR,
      message: expect.stringMatching(/connection not open/),
    });
  });

  it('opens read-only: changes are refused with OPERATION_DENIED', async () => {
    const client = await track(connect('test:///default', { readOnly: true }));
    const err = await client
      .call('DOMAIN_DEFINE_XML', { xml: testDomainXml(egtestName('ro')) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).code).toBe(ErrorCode.OPERATION_DENIED);
    expect((err as LibvirtError).message).toMatch(/read only access/);
  });

  it('reports an unknown URI as a LibvirtError from connect()', async () => {
    await expect(connect('bogus:///nothing')).rejects.toBeInstanceOf(LibvirtError);
  });
});

describe('calls', () => {
  it('pipelines hundreds of calls on one connection', async () => {
    const client = await track(connect('test:///default'));
    const replies = await Promise.all(Array.from({ length: 500 }, () => client.call('CONNECT_GET_LIB_VERSION')));
    expect(new Set(replies.map(String)).size).toBe(1);
    expect(client.pendingCalls).toBe(0);
  });

  it('turns an unknown procedure into LibvirtError code 39 and keeps the connection', async () => {
    const client = await track(connect('test:///default'));
    const err = await client.callRaw(9999).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ code: ErrorCode.RPC, domain: 7, message: 'unknown procedure: 9999' });
    expect(await client.call('CONNECT_GET_URI')).toBe('test:///default');
  });

  it('decodes a real error with its domain and level', async () => {
    const client = await track(connect('test:///default'));
    const err = (await client
      .call('DOMAIN_LOOKUP_BY_NAME', { name: egtestName('missing') })
      .catch((e: unknown) => e)) as LibvirtError;
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ code: ErrorCode.NO_DOMAIN, level: 2, procedure: 'DOMAIN_LOOKUP_BY_NAME' });
    expect(err.message).toMatch(/Domain not found/);
  });
});

describe('keepalive', () => {
  it('pings the daemon after the idle interval and gets PONGs', async () => {
    const taps: Tap[] = [];
    const client = await track(
      connect('test:///default', { keepalive: { intervalMs: 100, deadAfterMs: 5_000 } }, taps),
    );
    await until(
      () => taps[0]!.headers.filter((h) => h.prog === Program.KEEPALIVE && h.proc === KeepaliveProc.PONG).length >= 3,
    );
    expect(client.closed).toBe(false);
  });

  it('answers the daemon’s own PINGs (sent after 5 s idle) and stays connected', async () => {
    const taps: Tap[] = [];
    const client = await track(
      connect('test:///default', { keepalive: { intervalMs: 60_000, deadAfterMs: 120_000 } }, taps),
    );
    await until(
      () => taps[0]!.headers.some((h) => h.prog === Program.KEEPALIVE && h.proc === KeepaliveProc.PING),
      15_000,
    );
    const ping = taps[0]!.headers.find((h) => h.prog === Program.KEEPALIVE)!;
    expect(ping).toMatchObject({ type: MessageType.MESSAGE, status: 0 });
    expect(await client.call('CONNECT_GET_URI')).toBe('test:///default');
  }, 30_000);
});

describe('a connection killed mid-call', () => {
  it('fails every pending call promptly when the socket dies', async () => {
    const taps: Tap[] = [];
    const client = await connect('test:///default', {}, taps);
    const closed = new Promise<Error | undefined>((resolve) => client.once('close', resolve));
    const calls = Array.from({ length: 200 }, () =>
      client.call('CONNECT_LIST_ALL_DOMAINS', { needResults: 1, flags: 0 }),
    );
    const started = Date.now();
    taps[0]!.socket.destroy();
    const results = await Promise.allSettled(calls);
    expect(Date.now() - started).toBeLessThan(1_000);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    for (const r of rejected) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConnectionClosedError);
    expect(await closed).toBeInstanceOf(Error);
    await expect(client.call('CONNECT_GET_URI')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('fails pending and later calls when the daemon drops the client (virt-admin client-disconnect)', async () => {
    const client = await connect('test:///default');
    const closed = new Promise<Error | undefined>((resolve) => client.once('close', resolve));
    const id = ourClientIds().at(-1);
    expect(id).toBeDefined();
    const calls = Array.from({ length: 50 }, () => client.call('CONNECT_GET_HOSTNAME'));
    execFileSync('virt-admin', ['client-disconnect', 'libvirtd', String(id)]);
    await Promise.allSettled(calls);
    const reason = await closed;
    expect(reason).toBeInstanceOf(ConnectionClosedError);
    expect(reason!.message).toMatch(/libvirtd closed the connection|was closed/);
    await expect(client.call('CONNECT_GET_URI')).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

/** Ids of libvirtd's clients that are this process, oldest first. */
function ourClientIds(): number[] {
  const list = execFileSync('virt-admin', ['srv-clients-list', 'libvirtd'], { encoding: 'utf8' });
  const ids = [...list.matchAll(/^\s*(\d+)\s+unix/gm)].map((m) => Number(m[1]));
  return ids.filter((id) => {
    const info = execFileSync('virt-admin', ['client-info', 'libvirtd', String(id)], { encoding: 'utf8' });
    return new RegExp(`unix_process_id\\s*:\\s*${process.pid}\\b`).test(info);
  });
}

describe('close', () => {
  it('sends CONNECT_CLOSE, gets its reply, and emits close without a reason', async () => {
    const taps: Tap[] = [];
    const client = await connect('test:///default', {}, taps);
    const closed = new Promise<Error | undefined>((resolve) => client.once('close', resolve));
    await client.close();
    expect(await closed).toBeUndefined();
    expect(taps[0]!.headers.some((h) => h.type === MessageType.REPLY && h.proc === 2 && h.status === 0)).toBe(true);
    expect(taps[0]!.socket.destroyed).toBe(true);
  });
});
