import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeToBuffer } from '../../../electron/libvirt/codec.js';
import { ProtocolError } from '../../../electron/libvirt/errors.js';
import { PacketParser } from '../../../electron/libvirt/framing.js';
import {
  MAX_PACKET,
  MessageStatus,
  MessageType,
  type Packet,
  type PacketHeader,
  Program,
  decodeHeader,
  encodePacket,
  finishPacket,
  startPacket,
} from '../../../electron/libvirt/packet.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import { XdrError, XdrReader } from '../../../electron/libvirt/xdr.js';

const call = (proc: number, serial: number): PacketHeader => ({
  prog: Program.REMOTE,
  vers: 1,
  proc,
  type: MessageType.CALL,
  serial,
  status: MessageStatus.OK,
});

describe('packet encoding', () => {
  it('encodes CONNECT_OPEN("qemu:///system", flags 0), serial 1, as the 56-byte reference vector', () => {
    const w = startPacket(call(procedures.CONNECT_OPEN.proc, 1));
    procedures.CONNECT_OPEN.args.encode(w, { name: 'qemu:///system', flags: 0 });
    const bytes = finishPacket(w);
    const expected =
      '00000038' +
      '20008086' +
      '00000001' +
      '00000001' +
      '00000000' +
      '00000001' +
      '00000000' +
      '00000001' +
      '0000000e' +
      Buffer.from('qemu:///system').toString('hex') +
      '0000' +
      '00000000';
    expect(bytes).toHaveLength(56);
    expect(bytes.toString('hex')).toBe(expected);
  });

  it('decodes the header fields, proc/type/status signed, serial unsigned', () => {
    const bytes = encodePacket({
      prog: Program.KEEPALIVE,
      vers: 1,
      proc: 1,
      type: MessageType.MESSAGE,
      serial: 0xfffffffe,
      status: MessageStatus.CONTINUE,
    });
    expect(bytes.toString('hex')).toBe('0000001c6b656570000000010000000100000002fffffffe00000002');
    expect(decodeHeader(bytes)).toEqual({
      prog: Program.KEEPALIVE,
      vers: 1,
      proc: 1,
      type: 2,
      serial: 0xfffffffe,
      status: 2,
    });
  });

  it('refuses to build a packet larger than 32 MiB', () => {
    expect(() => encodePacket(call(208, 1), Buffer.alloc(MAX_PACKET))).toThrow(RangeError);
  });
});

/** Three packets of different sizes, including an empty payload and a padded string. */
function fixture(): { bytes: Buffer; packets: Packet[] } {
  const packets: Packet[] = [
    {
      header: call(1, 1),
      payload: encodeToBuffer(procedures.CONNECT_OPEN.args, { name: 'test:///default', flags: 0 }),
    },
    { header: { ...call(2, 2), type: MessageType.REPLY }, payload: Buffer.alloc(0) },
    {
      header: { ...call(208, 3), type: MessageType.STREAM, status: MessageStatus.CONTINUE },
      payload: Buffer.from('abcdefg'),
    },
  ];
  return { bytes: Buffer.concat(packets.map((p) => encodePacket(p.header, p.payload))), packets };
}

const plain = (ps: Packet[]) => ps.map((p) => ({ header: p.header, payload: Buffer.from(p.payload).toString('hex') }));

describe('PacketParser', () => {
  it('yields every packet of a buffer delivered whole', () => {
    const { bytes, packets } = fixture();
    expect(plain(new PacketParser().push(bytes))).toEqual(plain(packets));
  });

  it('yields the same packets when the buffer is split at every offset', () => {
    const { bytes, packets } = fixture();
    for (let i = 0; i <= bytes.length; i++) {
      const parser = new PacketParser();
      const out = [...parser.push(bytes.subarray(0, i)), ...parser.push(bytes.subarray(i))];
      expect(plain(out), `split at ${i}`).toEqual(plain(packets));
      expect(parser.bufferedBytes).toBe(0);
    }
  });

  it('yields the same packets when split at every pair of offsets', () => {
    const { bytes, packets } = fixture();
    for (let i = 0; i <= bytes.length; i += 3) {
      for (let j = i; j <= bytes.length; j += 5) {
        const parser = new PacketParser();
        const out = [
          ...parser.push(bytes.subarray(0, i)),
          ...parser.push(bytes.subarray(i, j)),
          ...parser.push(bytes.subarray(j)),
        ];
        expect(plain(out), `split at ${i},${j}`).toEqual(plain(packets));
      }
    }
  });

  it('yields the same packets fed one byte at a time', () => {
    const { bytes, packets } = fixture();
    const parser = new PacketParser();
    const out: Packet[] = [];
    for (const b of bytes) out.push(...parser.push(Buffer.from([b])));
    expect(plain(out)).toEqual(plain(packets));
  });

  it('hands out a view, not a copy, when one chunk holds the packet', () => {
    const bytes = encodePacket(call(1, 1), Buffer.from('abcd'));
    const [packet] = new PacketParser().push(bytes);
    expect(packet!.payload.buffer).toBe(bytes.buffer);
  });

  it('assembles a large stream packet from many small chunks in linear time', () => {
    const payload = Buffer.alloc(8 * 1024 * 1024, 7);
    const bytes = encodePacket({ ...call(209, 9), type: MessageType.STREAM, status: MessageStatus.CONTINUE }, payload);
    const parser = new PacketParser();
    const started = performance.now();
    const out: Packet[] = [];
    for (let off = 0; off < bytes.length; off += 1024) out.push(...parser.push(bytes.subarray(off, off + 1024)));
    // 8192 chunks: a quadratic merge would copy ~32 GiB and take minutes.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(out).toHaveLength(1);
    expect(out[0]!.payload.equals(payload)).toBe(true);
  });

  it('refuses a length word above 32 MiB with a ProtocolError, even before the packet arrives', () => {
    const parser = new PacketParser();
    const word = Buffer.alloc(4);
    word.writeUInt32BE(MAX_PACKET + 1);
    expect(() => parser.push(word)).toThrow(ProtocolError);
    expect(() => parser.push(word)).toThrow(/exceeds the maximum of 33554432 bytes/);
    // Once failed, it stays failed: the byte stream is out of sync.
    expect(() => parser.push(Buffer.alloc(0))).toThrow(ProtocolError);
  });

  it('accepts a length word of exactly 32 MiB', () => {
    const word = Buffer.alloc(28);
    word.writeUInt32BE(MAX_PACKET);
    const parser = new PacketParser();
    expect(parser.push(word)).toEqual([]);
    expect(parser.bufferedBytes).toBe(28);
  });

  it.each([0, 1, 27])('refuses a length word of %i (smaller than the header)', (n) => {
    const word = Buffer.alloc(28);
    word.writeUInt32BE(n);
    expect(() => new PacketParser().push(word)).toThrow(/smaller than the 28-byte header/);
  });

  it('never throws anything but ProtocolError on random bytes, and always returns (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 20 }), (chunks) => {
        const parser = new PacketParser();
        try {
          for (const c of chunks) parser.push(Buffer.from(c));
        } catch (err) {
          expect(err).toBeInstanceOf(ProtocolError);
        }
      }),
    );
  });

  it('never throws anything but ProtocolError/XdrError on mutated real packets, even when decoding them (property)', () => {
    const { bytes } = fixture();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(bytes.length), { maxLength: 4 }),
        (mutations, cuts) => {
          const mutated = Buffer.from(bytes);
          for (const [at, value] of mutations) mutated[at] = value;
          const offsets = [...new Set([0, ...cuts, mutated.length])].sort((a, b) => a - b);
          const parser = new PacketParser();
          try {
            for (let i = 0; i + 1 < offsets.length; i++) {
              for (const p of parser.push(mutated.subarray(offsets[i], offsets[i + 1]))) {
                if (p.header.proc === 1) procedures.CONNECT_OPEN.args.decode(new XdrReader(p.payload));
              }
            }
          } catch (err) {
            expect(err instanceof ProtocolError || err instanceof XdrError).toBe(true);
          }
        },
      ),
    );
  });
});
