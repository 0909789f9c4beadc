import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  array,
  bool,
  char,
  decodeAll,
  double,
  encodeToBuffer,
  fixedArray,
  fixedOpaque,
  hyper,
  int,
  opaque,
  optional,
  short,
  string,
  struct,
  uchar,
  uhyper,
  uint,
  union,
  ushort,
} from '../../../electron/libvirt/codec.js';
import { charString, typedParam } from '../../../electron/libvirt/types.js';
import { XdrError, XdrReader, XdrWriter } from '../../../electron/libvirt/xdr.js';

const hex = (b: Buffer): string => b.toString('hex');

describe('XdrWriter / XdrReader', () => {
  it('writes int and uint big-endian in 4 bytes', () => {
    expect(hex(new XdrWriter().int(-1).int(0x12345678).uint(0xffffffff).finish())).toBe('ffffffff12345678ffffffff');
    const r = new XdrReader(Buffer.from('ffffffff80000000', 'hex'));
    expect(r.int()).toBe(-1);
    expect(r.int()).toBe(-0x80000000);
  });

  it.each([
    ['int', () => new XdrWriter().int(0x80000000)],
    ['int (fraction)', () => new XdrWriter().int(1.5)],
    ['uint', () => new XdrWriter().uint(-1)],
    ['uint (2^32)', () => new XdrWriter().uint(2 ** 32)],
    ['hyper', () => new XdrWriter().hyper(1n << 63n)],
    ['uhyper', () => new XdrWriter().uhyper(-1n)],
    ['uhyper (2^64)', () => new XdrWriter().uhyper(1n << 64n)],
  ])('refuses an out-of-range %s', (_name, write) => {
    expect(write).toThrow(XdrError);
  });

  it('round-trips hyper and uhyper at their edges as BigInt', () => {
    const edges = [-(1n << 63n), -1n, 0n, 1n, (1n << 63n) - 1n];
    for (const v of edges) expect(decodeAll(hyper, encodeToBuffer(hyper, v))).toBe(v);
    for (const v of [0n, 1n, (1n << 53n) + 1n, (1n << 64n) - 1n])
      expect(decodeAll(uhyper, encodeToBuffer(uhyper, v))).toBe(v);
    expect(hex(encodeToBuffer(uhyper, (1n << 64n) - 1n))).toBe('ffffffffffffffff');
    expect(hex(encodeToBuffer(hyper, -2n))).toBe('fffffffffffffffe');
  });

  it('encodes bool as a 4-byte 0/1 and refuses other values', () => {
    expect(hex(encodeToBuffer(bool, true))).toBe('00000001');
    expect(() => decodeAll(bool, Buffer.from('00000002', 'hex'))).toThrow(/bool must be 0 or 1/);
  });

  it('sends char, uchar, short and ushort as 4 bytes each', () => {
    expect(hex(encodeToBuffer(char, -1))).toBe('ffffffff');
    expect(hex(encodeToBuffer(uchar, 255))).toBe('000000ff');
    expect(hex(encodeToBuffer(short, -2))).toBe('fffffffe');
    expect(hex(encodeToBuffer(ushort, 65535))).toBe('0000ffff');
    expect(() => encodeToBuffer(uchar, 256)).toThrow(XdrError);
    expect(() => decodeAll(char, Buffer.from('00000080', 'hex'))).toThrow(/char out of range/);
    // char model[32] is 128 bytes on the wire.
    expect(encodeToBuffer(charString(32), 'x86_64')).toHaveLength(128);
    expect(decodeAll(charString(32), encodeToBuffer(charString(32), 'x86_64'))).toBe('x86_64');
  });

  it('round-trips doubles exactly', () => {
    for (const v of [0, -0, 1.5, Math.PI, Number.MAX_VALUE, Number.MIN_VALUE, Infinity]) {
      expect(Object.is(decodeAll(double, encodeToBuffer(double, v)), v)).toBe(true);
    }
    expect(Number.isNaN(decodeAll(double, encodeToBuffer(double, NaN)))).toBe(true);
  });

  it.each([
    ['', '00000000'],
    ['a', '0000000161000000'],
    ['ab', '0000000261620000'],
    ['abc', '0000000361626300'],
    ['abcd', '0000000461626364'],
    ['abcde', '000000056162636465000000'],
  ])('pads string %j with zeros to 4 bytes', (s, wire) => {
    expect(hex(encodeToBuffer(string(), s))).toBe(wire);
    expect(decodeAll(string(), Buffer.from(wire, 'hex'))).toBe(s);
  });

  it('counts string length in UTF-8 bytes', () => {
    const wire = encodeToBuffer(string(), 'é✓');
    expect(wire.readUInt32BE(0)).toBe(5);
    expect(wire).toHaveLength(4 + 8);
    expect(decodeAll(string(), wire)).toBe('é✓');
  });

  it('enforces the string and opaque maximum both ways', () => {
    expect(() => encodeToBuffer(string(3), 'abcd')).toThrow(/exceeds maximum 3/);
    expect(() => decodeAll(string(3), encodeToBuffer(string(), 'abcd'))).toThrow(/string length 4 exceeds maximum 3/);
    expect(() => decodeAll(opaque(2), encodeToBuffer(opaque(), Buffer.from([1, 2, 3])))).toThrow(
      /opaque length 3 exceeds maximum 2/,
    );
  });

  it('writes fixed opaque without a length (a UUID is exactly 16 bytes) and variable opaque with one', () => {
    const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    expect(encodeToBuffer(fixedOpaque(16), id)).toEqual(id);
    expect(hex(encodeToBuffer(fixedOpaque(3), Buffer.from([1, 2, 3])))).toBe('01020300');
    expect(hex(encodeToBuffer(opaque(), Buffer.from([1, 2, 3])))).toBe('0000000301020300');
    expect(() => encodeToBuffer(fixedOpaque(16), Buffer.alloc(15))).toThrow(/must be 16 bytes/);
  });

  it('marks a present optional with 00000001 and an absent one with 00000000', () => {
    expect(hex(encodeToBuffer(optional(uint), 5))).toBe('0000000100000005');
    expect(hex(encodeToBuffer(optional(uint), null))).toBe('00000000');
    expect(decodeAll(optional(string()), Buffer.from('00000000', 'hex'))).toBeNull();
    expect(() => decodeAll(optional(uint), Buffer.from('0000000200000005', 'hex'))).toThrow(
      /optional flag must be 0 or 1/,
    );
  });

  it('enforces an array maximum on decode and names the field', () => {
    const list = struct('list_ret', { items: array(uint, 2), ret: uint });
    const wire = Buffer.from('00000003000000010000000200000003' + '00000003', 'hex');
    expect(() => decodeAll(list, wire)).toThrow(XdrError);
    try {
      decodeAll(list, wire);
    } catch (err) {
      expect((err as XdrError).path).toEqual(['items']);
      expect((err as XdrError).message).toBe('items: array length 3 exceeds maximum 2');
    }
    expect(() => encodeToBuffer(list, { items: [1, 2, 3], ret: 0 })).toThrow(/exceeds maximum 2/);
  });

  it('names the nested path of a failure inside an array element', () => {
    const rec = struct('rec', { doms: array(struct('dom', { name: string(), id: int }), 10) });
    const good = encodeToBuffer(rec, {
      doms: [
        { name: 'a', id: 1 },
        { name: 'b', id: 2 },
      ],
    });
    try {
      decodeAll(rec, good.subarray(0, good.length - 2));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(XdrError);
      expect((err as XdrError).message).toMatch(/^doms\[1\]\.id: truncated/);
    }
  });

  it('refuses an array count the buffer cannot hold before looping', () => {
    expect(() => decodeAll(array(uint, 1_000_000), Buffer.from('000f4240', 'hex'))).toThrow(
      /truncated: array of 1000000 elements/,
    );
  });

  it('writes fixed arrays without a count', () => {
    expect(hex(encodeToBuffer(fixedArray(uint, 2), [1, 2]))).toBe('0000000100000002');
    expect(() => encodeToBuffer(fixedArray(uint, 2), [1])).toThrow(/must have 2 elements/);
  });

  it('reports truncation with the offset and the missing bytes', () => {
    expect(() => new XdrReader(Buffer.from('0000', 'hex')).uint()).toThrow(
      'truncated: unsigned int needs 4 bytes at offset 0, only 2 left',
    );
    expect(() => decodeAll(string(), Buffer.from('0000000561', 'hex'))).toThrow(/truncated: string of 5 bytes/);
    expect(() => decodeAll(uint, Buffer.from('0000000100', 'hex'))).toThrow(/1 unexpected trailing bytes/);
  });

  it('grows the writer buffer as needed', () => {
    const w = new XdrWriter(16);
    for (let i = 0; i < 10_000; i++) w.uint(i);
    const r = new XdrReader(w.finish());
    for (let i = 0; i < 10_000; i++) expect(r.uint()).toBe(i);
  });

  it('round-trips every typed parameter type and refuses unknown discriminants', () => {
    const params = [
      { field: 'i', value: { type: 1, value: -5 } },
      { field: 'u', value: { type: 2, value: 5 } },
      { field: 'l', value: { type: 3, value: -(1n << 62n) } },
      { field: 'ul', value: { type: 4, value: (1n << 64n) - 1n } },
      { field: 'd', value: { type: 5, value: 0.25 } },
      { field: 'b', value: { type: 6, value: true } },
      { field: 's', value: { type: 7, value: 'running' } },
    ] as const;
    for (const p of params) expect(decodeAll(typedParam, encodeToBuffer(typedParam, p))).toEqual(p);
    const bad = Buffer.concat([encodeToBuffer(string(), 'x'), Buffer.from('00000009', 'hex')]);
    expect(() => decodeAll(typedParam, bad)).toThrow(/value: remote_typed_param_value: unknown discriminant 9/);
    expect(() => decodeAll(union('u', { 1: int }), Buffer.from('0000000200000000', 'hex'))).toThrow(
      /unknown discriminant 2/,
    );
  });

  it('round-trips random structs (property)', () => {
    const codec = struct('random', {
      a: int,
      b: uint,
      c: hyper,
      d: uhyper,
      e: string(64),
      f: optional(string(64)),
      g: array(uint, 8),
      h: opaque(32),
      i: bool,
    });
    fc.assert(
      fc.property(
        fc.record({
          a: fc.integer({ min: -0x80000000, max: 0x7fffffff }),
          b: fc.integer({ min: 0, max: 0xffffffff }),
          c: fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
          d: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
          e: fc.string({ maxLength: 16 }),
          f: fc.option(fc.string({ maxLength: 16 }), { nil: null }),
          g: fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 8 }),
          h: fc.uint8Array({ maxLength: 32 }).map((u) => Buffer.from(u)),
          i: fc.boolean(),
        }),
        (value) => {
          const wire = encodeToBuffer(codec, value);
          expect(wire.length % 4).toBe(0);
          expect(decodeAll(codec, wire)).toEqual(value);
        },
      ),
    );
  });
});
