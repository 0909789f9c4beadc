/**
 * LibvirtClient against an in-memory daemon: the handshake, calls (pipelined, errors,
 * events beside them) and the typed api object. The connection's failures, close,
 * keepalive and timers: client-connection.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { LibvirtClient } from '../../../electron/libvirt/client.js';
import { decodeAll, encodeToBuffer } from '../../../electron/libvirt/codec.js';
import { AuthType, Feature } from '../../../electron/libvirt/constants.js';
import { ErrorCode, LibvirtError, ProtocolError } from '../../../electron/libvirt/errors.js';
import { MessageType } from '../../../electron/libvirt/packet.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import type { Dialer } from '../../../electron/transport/dialer.js';
import { duplexPair } from './support/duplex-pair.js';
import { FakeDaemon, clientAndDaemon, sleep } from './support/fake-daemon.js';

const dom = { name: 'vm1', uuid: Buffer.alloc(16, 1), id: -1 };

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
    expect(open.payload.toString('hex')).toBe(
      '00000001' + '0000000e' + Buffer.from('qemu:///system').toString('hex') + '0000' + '00000000',
    );
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
    daemon
      .handshake({ auth: [AuthType.POLKIT] })
      .handle('AUTH_POLKIT', (c, d) => d.replyWith(c, procedures.AUTH_POLKIT.reply, 1));
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
    daemon
      .handshake()
      .handle('CONNECT_OPEN', (c, d) =>
        d.replyError(c, ErrorCode.NO_SUPPORT, 'no connection driver available for bogus:///'),
      );
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
    daemon.replyError(
      await daemon.next(),
      ErrorCode.NO_DOMAIN,
      "Domain not found: no domain with matching name 'nope'",
    );
    const err = (await p.catch((e: unknown) => e)) as LibvirtError;
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({
      code: 42,
      domain: 10,
      level: 2,
      str1: 'extra 1',
      str2: null,
      int1: -1,
      int2: 7,
      procedure: 'DOMAIN_LOOKUP_BY_NAME',
    });
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
    const event = encodeToBuffer(procedures.DOMAIN_EVENT_CALLBACK_LIFECYCLE.args, {
      callbackID: 1,
      dom,
      event: 2,
      detail: 0,
    });
    daemon.send({ proc: 318, type: MessageType.MESSAGE, serial: 1 }, event);
    await sleep(10);
    expect(client.pendingCalls).toBe(1);
    daemon.replyWith(call, procedures.CONNECT_GET_URI.reply, 'test:///default');
    await expect(first).resolves.toBe('test:///default');
    client.destroy();
  });

  it('rejects a call whose arguments do not encode, naming the field, without sending anything', async () => {
    const { client, daemon } = clientAndDaemon();
    await expect(client.call('DOMAIN_GET_XML_DESC', { dom, flags: -1 })).rejects.toThrow(
      /flags: unsigned int out of range: -1/,
    );
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

describe('the typed api object', () => {
  it('exposes each call procedure as a camelCase method', async () => {
    const { client, daemon } = clientAndDaemon();
    daemon.handle('CONNECT_GET_LIB_VERSION', (c, d) =>
      d.replyWith(c, procedures.CONNECT_GET_LIB_VERSION.reply, 9_000_000n),
    );
    daemon.handle('DOMAIN_LOOKUP_BY_NAME', (c, d) => d.replyWith(c, procedures.DOMAIN_LOOKUP_BY_NAME.reply, dom));
    await expect(client.api.connectGetLibVersion()).resolves.toBe(9_000_000n);
    await expect(client.api.domainLookupByName({ name: 'vm1' })).resolves.toEqual(dom);
    expect('storageVolUpload' in client.api).toBe(false);
    client.destroy();
  });
});
