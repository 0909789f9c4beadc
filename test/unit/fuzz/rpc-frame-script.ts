/**
 * The daemon's side of the RPC frame fuzz (rpc-frames.test.ts): the calls the fuzz makes,
 * the script of frames a daemon (or a broken link) can send back, and its rendering into
 * bytes once the client has chosen its serials. Kept apart from the test so that the
 * test reads as what it checks; `Placed` records where each frame's bytes sit, so that
 * the checks can tell what the client had read whole when the stream was cut.
 */
import fc from 'fast-check';
import type { LibvirtClient } from '../../../electron/libvirt/client.js';
import { type Codec, encodeToBuffer } from '../../../electron/libvirt/codec.js';
import {
  KeepaliveProc,
  MessageStatus,
  MessageType,
  Program,
  encodePacket,
  type PacketHeader,
} from '../../../electron/libvirt/packet.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import { remoteError } from '../../../electron/libvirt/types.js';

/** Small, so that "oversized" is cheap to say; the client's default is libvirt's 32 MiB. */
export const MAX_PACKET = 64 * 1024;

/** The plain calls the fuzz makes, each with a reply value that is its own. */
export const CALLS: ReadonlyArray<{
  reply: Codec<unknown>;
  value: (serial: number) => unknown;
  invoke: (client: LibvirtClient) => Promise<unknown>;
}> = [
  {
    reply: procedures.CONNECT_GET_URI.reply,
    value: (i) => `test:///call-${i}`,
    invoke: (client) => client.call('CONNECT_GET_URI'),
  },
  {
    reply: procedures.CONNECT_GET_LIB_VERSION.reply,
    value: (i) => BigInt(9_000_000 + i),
    invoke: (client) => client.call('CONNECT_GET_LIB_VERSION'),
  },
  { reply: procedures.AUTH_LIST.reply, value: (i) => [i, 0], invoke: (client) => client.call('AUTH_LIST') },
  {
    reply: procedures.DOMAIN_LOOKUP_BY_NAME.reply,
    value: (i) => ({ name: `vm${i}`, uuid: Buffer.alloc(16, i % 256), id: i }),
    invoke: (client) => client.call('DOMAIN_LOOKUP_BY_NAME', { name: 'vm' }),
  },
];

export type Frame =
  | {
      kind: 'reply';
      call: number;
      variant:
        | 'ok'
        | 'garbage'
        | 'truncated'
        | 'trailing'
        | 'error'
        | 'error-garbage'
        | 'bad-status'
        | 'wrong-prog'
        | 'wrong-type';
      bytes: Uint8Array;
      status: number;
    }
  | { kind: 'misdirected'; call: number; to: number }
  | {
      kind: 'stream';
      variant: 'data' | 'eof' | 'ok' | 'error' | 'hole' | 'bad-status' | 'reply-after';
      bytes: Uint8Array;
    }
  | { kind: 'event'; proc: number; bytes: Uint8Array }
  | { kind: 'keepalive'; proc: number; type: number }
  | { kind: 'random'; header: PacketHeader; bytes: Uint8Array }
  | { kind: 'garbage'; bytes: Uint8Array }
  | { kind: 'bad-length'; length: number };

const bytes = (max: number) => fc.uint8Array({ maxLength: max });
export const frame: fc.Arbitrary<Frame> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('reply' as const),
      call: fc.nat(7),
      variant: fc.oneof(
        { weight: 4, arbitrary: fc.constant('ok' as const) },
        fc.constantFrom(
          'garbage' as const,
          'truncated' as const,
          'trailing' as const,
          'error' as const,
          'error-garbage' as const,
          'bad-status' as const,
          'wrong-prog' as const,
          'wrong-type' as const,
        ),
      ),
      bytes: bytes(48),
      status: fc.integer({ min: -2, max: 5 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('misdirected' as const),
      call: fc.nat(7),
      to: fc.oneof(fc.nat(7), fc.integer({ min: 100, max: 0xffffffff })),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('stream' as const),
      variant: fc.oneof(
        { weight: 4, arbitrary: fc.constant('data' as const) },
        fc.constantFrom(
          'eof' as const,
          'ok' as const,
          'error' as const,
          'hole' as const,
          'bad-status' as const,
          'reply-after' as const,
        ),
      ),
      bytes: bytes(64),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('event' as const),
      proc: fc.oneof(fc.constantFrom(318, 319, 107, 1), fc.integer({ min: -1, max: 500 })),
      bytes: bytes(48),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('keepalive' as const),
      proc: fc.constantFrom(KeepaliveProc.PING, KeepaliveProc.PONG, 3, 0),
      type: fc.constantFrom(MessageType.MESSAGE, MessageType.MESSAGE, MessageType.REPLY, MessageType.CALL),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('random' as const),
      header: fc.record({
        prog: fc.constantFrom(Program.REMOTE, Program.QEMU, Program.KEEPALIVE, 0xdeadbeef),
        vers: fc.constantFrom(1, 2),
        proc: fc.integer({ min: -5, max: 400 }),
        type: fc.integer({ min: -1, max: 7 }),
        serial: fc.oneof(fc.nat(10), fc.integer({ min: 0, max: 0xffffffff })),
        status: fc.integer({ min: -1, max: 3 }),
      }),
      bytes: bytes(48),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('garbage' as const),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bad-length' as const),
      length: fc.oneof(
        fc.integer({ min: 0, max: 27 }),
        fc.integer({ min: MAX_PACKET + 1, max: 0xffffffff }),
        fc.constant(0xffffffff),
      ),
    }),
  },
);

export interface Issued {
  serial: number;
  proc: number;
  /** Index into CALLS, or -1 for the download's stream. */
  call: number;
}

/** One packet (or raw bytes) of the script and where its bytes sit in the stream. */
export interface Placed {
  frame: Frame;
  start: number;
  end: number;
  header?: PacketHeader;
  payload?: Buffer;
}

function errorPayload(message: string): Buffer {
  return encodeToBuffer(remoteError, {
    code: 42,
    domain: 10,
    message,
    level: 2,
    dom: null,
    str1: message,
    str2: null,
    str3: null,
    int1: 0,
    int2: 0,
    net: null,
  });
}

/** Turns the script into bytes, given the serials the client chose. */
export function render(
  frames: readonly Frame[],
  issued: readonly Issued[],
  stream: Issued | undefined,
): { wire: Buffer; placed: Placed[] } {
  const placed: Placed[] = [];
  const parts: Buffer[] = [];
  let offset = 0;
  const add = (f: Frame, bytesOut: Buffer, header?: PacketHeader, payload?: Buffer): void => {
    placed.push({
      frame: f,
      start: offset,
      end: offset + bytesOut.length,
      ...(header ? { header, payload: payload ?? Buffer.alloc(0) } : {}),
    });
    parts.push(bytesOut);
    offset += bytesOut.length;
  };
  const packet = (f: Frame, header: PacketHeader, payload: Buffer): void =>
    add(f, encodePacket(header, payload), header, payload);
  const plain = issued.filter((c) => c.call >= 0);
  for (const f of frames) {
    switch (f.kind) {
      case 'reply': {
        const c = plain[f.call % Math.max(1, plain.length)];
        if (!c) break;
        const good = encodeToBuffer(CALLS[c.call]!.reply, CALLS[c.call]!.value(c.serial));
        const h: PacketHeader = {
          prog: Program.REMOTE,
          vers: 1,
          proc: c.proc,
          type: MessageType.REPLY,
          serial: c.serial,
          status: MessageStatus.OK,
        };
        const extra = Buffer.from(f.bytes);
        switch (f.variant) {
          case 'ok':
            packet(f, h, good);
            break;
          case 'garbage':
            packet(f, h, extra);
            break;
          case 'truncated':
            packet(f, h, good.subarray(0, Math.max(0, good.length - 1 - (extra.length % Math.max(1, good.length)))));
            break;
          case 'trailing':
            packet(f, h, Buffer.concat([good, extra.length ? extra : Buffer.from([0])]));
            break;
          case 'error':
            packet(f, { ...h, status: MessageStatus.ERROR }, errorPayload(`no domain for call ${c.serial}`));
            break;
          case 'error-garbage':
            packet(f, { ...h, status: MessageStatus.ERROR }, extra);
            break;
          case 'bad-status':
            packet(f, { ...h, status: f.status === 0 || f.status === 1 ? 7 : f.status }, good);
            break;
          case 'wrong-prog':
            packet(f, { ...h, prog: Program.QEMU }, good);
            break;
          case 'wrong-type':
            packet(f, { ...h, type: f.status === 1 ? MessageType.CALL : MessageType.CALL_WITH_FDS }, good);
            break;
        }
        break;
      }
      case 'misdirected': {
        // Call A's answer, addressed to call B (or to a serial nobody used).
        const a = plain[f.call % Math.max(1, plain.length)];
        if (!a) break;
        const b = f.to < 8 ? issued[f.to % issued.length]!.serial : f.to;
        packet(
          f,
          { prog: Program.REMOTE, vers: 1, proc: a.proc, type: MessageType.REPLY, serial: b, status: MessageStatus.OK },
          encodeToBuffer(CALLS[a.call]!.reply, CALLS[a.call]!.value(a.serial)),
        );
        break;
      }
      case 'stream': {
        if (!stream) break;
        const h: PacketHeader = {
          prog: Program.REMOTE,
          vers: 1,
          proc: stream.proc,
          type: MessageType.STREAM,
          serial: stream.serial,
          status: MessageStatus.CONTINUE,
        };
        const data = Buffer.from(f.bytes.length ? f.bytes : [0x2a]);
        if (f.variant === 'data') packet(f, h, data);
        else if (f.variant === 'eof') packet(f, h, Buffer.alloc(0));
        else if (f.variant === 'ok') packet(f, { ...h, status: MessageStatus.OK }, Buffer.alloc(0));
        else if (f.variant === 'error')
          packet(f, { ...h, status: MessageStatus.ERROR }, errorPayload('volume vanished'));
        else if (f.variant === 'hole') packet(f, { ...h, type: MessageType.STREAM_HOLE }, Buffer.alloc(16));
        else if (f.variant === 'bad-status') packet(f, { ...h, status: 9 }, data);
        // The opening call's reply: the first one answers the call, later ones go to the stream.
        else packet(f, { ...h, type: MessageType.REPLY, status: MessageStatus.OK }, Buffer.alloc(0));
        break;
      }
      case 'event':
        packet(
          f,
          {
            prog: Program.REMOTE,
            vers: 1,
            proc: f.proc,
            type: MessageType.MESSAGE,
            serial: 1,
            status: MessageStatus.OK,
          },
          Buffer.from(f.bytes),
        );
        break;
      case 'keepalive':
        packet(
          f,
          { prog: Program.KEEPALIVE, vers: 1, proc: f.proc, type: f.type, serial: 0, status: MessageStatus.OK },
          Buffer.alloc(0),
        );
        break;
      case 'random':
        packet(f, f.header, Buffer.from(f.bytes));
        break;
      case 'garbage':
        add(f, Buffer.from(f.bytes));
        break;
      case 'bad-length': {
        const b = Buffer.alloc(32);
        b.writeUInt32BE(f.length, 0);
        add(f, b);
        break;
      }
    }
  }
  return { wire: Buffer.concat(parts), placed };
}
