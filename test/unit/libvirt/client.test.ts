import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { LibvirtClient } from '../../../electron/libvirt/client.js';
import { decodeAll, encodeToBuffer } from '../../../electron/libvirt/codec.js';
import { AuthType, Feature } from '../../../electron/libvirt/constants.js';
import { ConnectionClosedError, ErrorCode, LibvirtError, ProtocolError } from '../../../electron/libvirt/errors.js';
import { KeepaliveProc, MessageStatus, MessageType, PACKET_OVERHEAD, Program, encodePacket } from '../../../electron/libvirt/packet.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import { XdrError } from '../../../electron/libvirt/xdr.js';
import type { Dialer } from '../../../electron/transport/dialer.js';
import { duplexPair } from './support/duplex-pair.js';
import { FakeDaemon, clientAndDaemon, sleep } from './support/fake-daemon.js';

const dom = { name: 'vm1', uuid: Buffer.alloc(16, 1), id: -1 };

function closeReason(client: LibvirtClient): Promise<Error | undefined> {
  return new Promise((resolve) => client.once('close', resolve));
}

describe('LibvirtClient handshake', () => {
  it('runs AUTH_LIST → SUPPORTS_FEATURE(keepalive) → CONNECT_OPEN, awaiting each reply before the next call', async () => {
    const { client, daemon } = clientAndDaemon();
    const opened = client.open({ uri: 'qemu:///system' });
    const auth = await daemon.nextCall('AUTH_LIST');
    await sleep(20);
    expect(daemon.received).toHaveLength(1);
    daemon.replyWith(auth, procedures.AUTH_LIST.reply, [AuthType.NONE]);
    const feature = await daemon.nextCall('CONNECT_SUPPORTS_FEATURE');
    expect(decodeAll(procedures.CONNECT_SUPPORTS_FEATURE.args, feature.payload)).toEqual({
      feature: Feature.PROGRAM_KEEPALIVE,
    });
    await sleep(20);
    expect(daemon.received).toHaveLength(2);
    daemon.replyWith(feature, procedures.CONNECT_SUPPORTS_FEATURE.reply, true);
    const open = await daemon.nextCall('CONNECT_OPEN');
    // The name is present (00000001) even though flags are 0.
    expect(open.payload.toString('hex')).toBe('00000001' + '0000000e' + Buffer.from('qemu:///system').toString('hex') + '0000' + '00000000');
    daemon.reply(open);
    await opened;
    client.destroy();
  });

  it('sends an empty but present name and the read-only flag when asked', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handshake();
    await client.open({ uri: '', readOnly: true, keepalive: false });
    const open = daemon.received.find((p) => p.header.proc === procedures.CONNECT_OPEN.proc)!;
    expect(open.payload.toString('hex')).toBe('00000001' + '00000000' + '00000001');
    expect(daemon.received.map((p) => p.header.proc)).toEqual([66, 1]);
    client.destroy();
  });

  it('asks polkit when it is the only method, telling the caller first', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handshake({ auth: [AuthType.POLKIT] }).handle('AUTH_POLKIT', (c, d) => d.replyWith(c, procedures.AUTH_POLKIT.reply, 1));
    const onPolkit = vi.fn();
    await client.open({ uri: 'qemu:///system', onPolkit, keepalive: false });
    expect(onPolkit).toHaveBeenCalledOnce();
    expect(daemon.received.map((p) => p.header.proc)).toEqual([66, 70, 1]);
    client.destroy();
  });

  it('refuses SASL-only daemons with AUTH_UNAVAILABLE and a clear message', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handshake({ auth: [AuthType.SASL] });
    const err = await client.open({ uri: 'qemu:///system' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).code).toBe(ErrorCode.AUTH_UNAVAILABLE);
    expect((err as LibvirtError).message).toMatch(/requires SASL authentication/);
    client.destroy();
  });

  it('connect() dials, opens, and destroys the stream when the handshake fails', async () => {
    const pair = duplexPair();
    const daemon = new FakeDaemon(pair.daemon);
    daemon.handshake().handle('CONNECT_OPEN', (c, d) => d.replyError(c, ErrorCode.NO_SUPPORT, 'no connection driver available for bogus:///'));
    const dialer: Dialer = { description: 'memory', dial: async () => pair.client };
    await expect(LibvirtClient.connect(dialer, { uri: 'bogus:///' })).rejects.toThrow(/no connection driver available/);
    expect(pair.client.destroyed).toBe(true);
  });
});

describe('LibvirtClient calls', () => {
  it('pipelines calls and matches out-of-order replies by serial', async () => {
    const { client, daemon } = clientAndDaemon();
    const a = client.call('CONNECT_GET_HOSTNAME');
    const b = client.call('CONNECT_GET_URI');
    const c = client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 });
    const [pa, pb, pc] = [await daemon.next(), await daemon.next(), await daemon.next()];
    expect([pa.header.serial, pb.header.serial, pc.header.serial]).toEqual([1, 2, 3]);
    expect(client.pendingCalls).toBe(3);
    daemon.replyWith(pc, procedures.DOMAIN_GET_XML_DESC.reply, '<domain/>');
    daemon.replyWith(pa, procedures.CONNECT_GET_HOSTNAME.reply, 'host-a');
    daemon.replyWith(pb, procedures.CONNECT_GET_URI.reply, 'test:///default');
    await expect(Promise.all([a, b, c])).resolves.toEqual(['host-a', 'test:///default', '<domain/>']);
    expect(client.pendingCalls).toBe(0);
    client.destroy();
  });

  it('rejects with a LibvirtError carrying every remote_error field', async () => {
    const { client, daemon } = clientAndDaemon();
    const p = client.call('DOMAIN_LOOKUP_BY_NAME', { name: 'nope' });
    daemon.replyError(await daemon.next(), ErrorCode.NO_DOMAIN, "Domain not found: no domain with matching name 'nope'");
    const err = (await p.catch((e: unknown) => e)) as LibvirtError;
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ code: 42, domain: 10, level: 2, str1: 'extra 1', str2: null, int1: -1, int2: 7, procedure: 'DOMAIN_LOOKUP_BY_NAME' });
    expect(err.message).toMatch(/Domain not found/);
    client.destroy();
  });

  it('turns the reply to an unknown procedure into a LibvirtError (code 39)', async () => {
    const { client, daemon } = clientAndDaemon();
    const p = client.callRaw(9999);
    daemon.replyError(await daemon.next(), ErrorCode.RPC, 'unknown procedure: 9999');
    await expect(p).rejects.toMatchObject({ name: 'LibvirtError', code: 39 });
    client.destroy();
  });

  it('routes events by procedure, never by serial: an event with serial 1 leaves call 1 pending', async () => {
    const { client, daemon } = clientAndDaemon();
    const first = client.call('CONNECT_GET_URI');
    const call = await daemon.next();
    expect(call.header.serial).toBe(1);
    const event = encodeToBuffer(procedures.DOMAIN_EVENT_CALLBACK_LIFECYCLE.args, { callbackID: 1, dom, event: 2, detail: 0 });
    daemon.send({ proc: 318, type: MessageType.MESSAGE, serial: 1 }, event);
    await sleep(10);
    expect(client.pendingCalls).toBe(1);
    daemon.replyWith(call, procedures.CONNECT_GET_URI.reply, 'test:///default');
    await expect(first).resolves.toBe('test:///default');
    client.destroy();
  });

  it('rejects a call whose arguments do not encode, naming the field, without sending anything', async () => {
    const { client, daemon } = clientAndDaemon();
    await expect(client.call('DOMAIN_GET_XML_DESC', { dom, flags: -1 })).rejects.toThrow(/flags: unsigned int out of range: -1/);
    await sleep(5);
    expect(daemon.received).toHaveLength(0);
    client.destroy();
  });

  it('rejects a reply that does not decode as a ProtocolError, keeping the connection', async () => {
    const { client, daemon } = clientAndDaemon();
    const p = client.call('CONNECT_GET_URI');
    daemon.reply(await daemon.next(), Buffer.from('00000009', 'hex'));
    await expect(p).rejects.toThrow(ProtocolError);
    expect(client.closed).toBe(false);
    client.destroy();
  });
});

describe('LibvirtClient failure handling', () => {
  async function expectFailed(client: LibvirtClient, pending: Promise<unknown>, cause: RegExp): Promise<void> {
    const reason = closeReason(client);
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(String((err as Error).message)).toMatch(cause);
    expect(await reason).toBeInstanceOf(Error);
    expect(client.closed).toBe(true);
    await expect(client.call('CONNECT_GET_URI')).rejects.toBeInstanceOf(ConnectionClosedError);
  }

  it('fails the connection on a reply for a serial never sent', async () => {
    const { client, daemon } = clientAndDaemon();
    const pending = client.call('CONNECT_GET_URI');
    await daemon.next();
    const reason = closeReason(client);
    daemon.send({ serial: 77, type: MessageType.REPLY });
    await expectFailed(client, pending, /no call is waiting/);
    const r = await reason;
    expect(r).toBeInstanceOf(ProtocolError);
  });

  it('fails the connection on garbage, with a clear error and no crash', async () => {
    const { client, daemon } = clientAndDaemon();
    const pending = client.call('CONNECT_GET_URI');
    await daemon.next();
    daemon.raw(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    await expectFailed(client, pending, /protocol error from libvirtd: packet length \d+ exceeds the maximum/);
  });

  it('fails the connection on an oversized length word', async () => {
    const { client, daemon } = clientAndDaemon();
    const pending = client.call('CONNECT_GET_URI');
    await daemon.next();
    daemon.raw(Buffer.from('02000001', 'hex'));
    await expectFailed(client, pending, /exceeds the maximum of 33554432/);
  });

  it('fails pending calls when the daemon sends half a packet and hangs up', async () => {
    const { client, daemon } = clientAndDaemon();
    const pending = client.call('CONNECT_GET_URI');
    const call = await daemon.next();
    const reply = encodePacket({ ...call.header, type: MessageType.REPLY }, encodeToBuffer(procedures.CONNECT_GET_URI.reply, 'test:///default'));
    daemon.raw(reply.subarray(0, PACKET_OVERHEAD + 3));
    await sleep(5);
    daemon.end.destroy();
    await expectFailed(client, pending, /closed the connection|was closed/);
  });

  it('fails the connection on an unexpected packet type', async () => {
    const { client, daemon } = clientAndDaemon();
    const pending = client.call('CONNECT_GET_URI');
    await daemon.next();
    daemon.send({ type: MessageType.CALL, serial: 5 });
    await expectFailed(client, pending, /unexpected packet type 0/);
  });

  it('rejects every pending call with ConnectionClosedError when the connection drops mid-call', async () => {
    const { client, daemon } = clientAndDaemon();
    const calls = [client.call('CONNECT_GET_URI'), client.call('CONNECT_GET_HOSTNAME'), client.call('NODE_GET_INFO')];
    await daemon.next();
    daemon.end.destroy();
    const results = await Promise.allSettled(calls);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConnectionClosedError);
    }
  });

  it('rejects a call whose write fails and forgets it', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.end.destroy();
    await sleep(5);
    await expect(client.call('CONNECT_GET_URI')).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(client.pendingCalls).toBe(0);
  });
});

describe('LibvirtClient close', () => {
  it('sends CONNECT_CLOSE, ends the stream, rejects what was pending and emits close without a reason', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handle('CONNECT_CLOSE', (c, d) => {
      d.reply(c);
      d.end.end();
    });
    const pending = client.call('CONNECT_GET_URI');
    const reason = closeReason(client);
    await client.close();
    await expect(pending).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(await reason).toBeUndefined();
    expect(daemon.received.map((p) => p.header.proc)).toEqual([110, 2]);
    await expect(client.close()).resolves.toBeUndefined();
  });

  it('does not wait forever for a daemon that never answers CONNECT_CLOSE', async () => {
    const { client } = clientAndDaemon({ closeTimeoutMs: 50 });
    const started = Date.now();
    await client.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(client.closed).toBe(true);
  });
});

describe('LibvirtClient keepalive', () => {
  const ping = { prog: Program.KEEPALIVE, proc: KeepaliveProc.PING, type: MessageType.MESSAGE, status: MessageStatus.OK };

  it('answers the daemon’s PING with PONG, even without keepalive negotiated', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.send(ping);
    const pong = await daemon.next();
    expect(pong.header).toMatchObject({ prog: Program.KEEPALIVE, proc: KeepaliveProc.PONG, type: MessageType.MESSAGE, status: 0 });
    client.destroy();
  });

  it('pings an idle daemon after the interval and keeps the connection while it answers', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handshake({ keepalive: true });
    await client.open({ uri: 'test:///default', keepalive: { intervalMs: 20, deadAfterMs: 150 } });
    for (let i = 0; i < 4; i++) {
      const p = await daemon.next((pk) => pk.header.prog === Program.KEEPALIVE);
      expect(p.header.proc).toBe(KeepaliveProc.PING);
      daemon.send({ ...ping, proc: KeepaliveProc.PONG });
    }
    expect(client.closed).toBe(false);
    client.destroy();
  });

  it('declares a silent daemon dead and fails pending calls', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handshake({ keepalive: true });
    await client.open({ uri: 'test:///default', keepalive: { intervalMs: 20, deadAfterMs: 100 } });
    const reason = closeReason(client);
    const pending = client.call('CONNECT_GET_URI');
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect((err as Error).message).toMatch(/no data from libvirtd for \d+ s: the connection is dead/);
    expect(await reason).toBeInstanceOf(ProtocolError);
  });

  it('does not ping when the daemon does not support keepalive', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handshake({ keepalive: false });
    await client.open({ uri: 'test:///default', keepalive: { intervalMs: 10, deadAfterMs: 30 } });
    await sleep(80);
    expect(daemon.received.some((p) => p.header.prog === Program.KEEPALIVE)).toBe(false);
    expect(client.closed).toBe(false);
    client.destroy();
  });
});

describe('the typed api object', () => {
  it('exposes each call procedure as a camelCase method', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handle('CONNECT_GET_LIB_VERSION', (c, d) => d.replyWith(c, procedures.CONNECT_GET_LIB_VERSION.reply, 9_000_000n));
    daemon.handle('DOMAIN_LOOKUP_BY_NAME', (c, d) => d.replyWith(c, procedures.DOMAIN_LOOKUP_BY_NAME.reply, dom));
    await expect(client.api.connectGetLibVersion()).resolves.toBe(9_000_000n);
    await expect(client.api.domainLookupByName({ name: 'vm1' })).resolves.toEqual(dom);
    expect('storageVolUpload' in client.api).toBe(false);
    client.destroy();
  });
});

describe('LibvirtClient against a misbehaving daemon (property)', () => {
  it('a reply with an invalid status rejects its call and fails the connection (found by the property below)', async () => {
    const { client, daemon } = clientAndDaemon();
    const pending = client.call('CONNECT_GET_URI');
    const call = await daemon.next();
    daemon.send({ prog: Program.REMOTE, vers: 1, proc: 110, type: 1, serial: call.header.serial, status: -1 }, new Uint8Array());
    await expect(pending).rejects.toBeInstanceOf(ProtocolError);
    client.destroy();
  });

  const header = fc.record({
    prog: fc.constantFrom(Program.REMOTE, Program.KEEPALIVE, 0x20008087, 0xdeadbeef),
    vers: fc.constantFrom(1, 2),
    proc: fc.oneof(fc.constantFrom(1, 2, 110, 318, 208), fc.integer({ min: -5, max: 100_000 })),
    type: fc.integer({ min: -1, max: 7 }),
    serial: fc.oneof(fc.constantFrom(0, 1, 2), fc.nat()),
    status: fc.integer({ min: -1, max: 3 }),
  });
  const packet = fc.tuple(header, fc.uint8Array({ maxLength: 64 }));

  it('never crashes: every call settles, and a broken connection closes with a ProtocolError or ConnectionClosedError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(packet, { minLength: 1, maxLength: 6 }), fc.uint8Array({ maxLength: 16 }), async (packets, trailer) => {
        const { client, daemon } = clientAndDaemon();
        const closed: { reason?: Error | undefined } = {};
        client.on('close', (r) => (closed.reason = r));
        const pending = client.call('CONNECT_GET_URI').then(
          (v) => ({ ok: v as unknown }),
          (e: unknown) => ({ err: e }),
        );
        await daemon.next();
        for (const [h, payload] of packets) daemon.send(h, payload);
        daemon.raw(trailer);
        await sleep(2);
        client.destroy();
        const result = await pending;
        if ('err' in result) {
          const e = result.err;
          expect(e instanceof ConnectionClosedError || e instanceof LibvirtError || e instanceof ProtocolError || e instanceof XdrError).toBe(true);
        } else {
          expect(typeof result.ok).toBe('string');
        }
        const reason = closed.reason;
        if (reason) expect(reason instanceof ProtocolError || reason instanceof ConnectionClosedError).toBe(true);
      }),
      // A run that hangs is a call that never settles: fail it with its counterexample.
      { numRuns: 150, timeout: 3000 },
    );
    // 150 random sessions take a few seconds on a quiet machine; CI runs other files alongside.
  }, 60_000);
});

describe('timers', () => {
  it('an idle client with keepalive does not keep the process alive (its timer is unref’d)', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const { client, daemon } = clientAndDaemon();
    daemon.handshake({ keepalive: true });
    await client.open({ uri: 'test:///default', keepalive: { intervalMs: 1_000, deadAfterMs: 5_000 } });
    expect(timers()).toBe(before);
    client.destroy();
  });
});
