/**
 * LibvirtClient's connection over its life, against an in-memory daemon: what fails it
 * (garbage, a bad length or type, a reply nobody asked for, a hang-up), close, keepalive,
 * a misbehaving daemon (property) and its timers. The handshake and calls: client.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../../electron/libvirt/client.js';
import { encodeToBuffer } from '../../../electron/libvirt/codec.js';
import { ConnectionClosedError, LibvirtError, ProtocolError } from '../../../electron/libvirt/errors.js';
import {
  KeepaliveProc,
  MessageStatus,
  MessageType,
  PACKET_OVERHEAD,
  Program,
  encodePacket,
} from '../../../electron/libvirt/packet.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import { XdrError } from '../../../electron/libvirt/xdr.js';
import { clientAndDaemon, sleep } from './support/fake-daemon.js';

function closeReason(client: LibvirtClient): Promise<Error | undefined> {
  return new Promise((resolve) => client.once('close', resolve));
}

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
    const reply = encodePacket(
      { ...call.header, type: MessageType.REPLY },
      encodeToBuffer(procedures.CONNECT_GET_URI.reply, 'test:///default'),
    );
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
  const ping = {
    prog: Program.KEEPALIVE,
    proc: KeepaliveProc.PING,
    type: MessageType.MESSAGE,
    status: MessageStatus.OK,
  };

  it('answers the daemon’s PING with PONG, even without keepalive negotiated', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.send(ping);
    const pong = await daemon.next();
    expect(pong.header).toMatchObject({
      prog: Program.KEEPALIVE,
      proc: KeepaliveProc.PONG,
      type: MessageType.MESSAGE,
      status: 0,
    });
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

describe('LibvirtClient against a misbehaving daemon (property)', () => {
  it('a reply with an invalid status rejects its call and fails the connection (found by the property below)', async () => {
    const { client, daemon } = clientAndDaemon();
    const pending = client.call('CONNECT_GET_URI');
    const call = await daemon.next();
    daemon.send(
      { prog: Program.REMOTE, vers: 1, proc: 110, type: 1, serial: call.header.serial, status: -1 },
      new Uint8Array(),
    );
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
      fc.asyncProperty(
        fc.array(packet, { minLength: 1, maxLength: 6 }),
        fc.uint8Array({ maxLength: 16 }),
        async (packets, trailer) => {
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
            expect(
              e instanceof ConnectionClosedError ||
                e instanceof LibvirtError ||
                e instanceof ProtocolError ||
                e instanceof XdrError,
            ).toBe(true);
          } else {
            expect(typeof result.ok).toBe('string');
          }
          const reason = closed.reason;
          if (reason) expect(reason instanceof ProtocolError || reason instanceof ConnectionClosedError).toBe(true);
        },
      ),
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
