/**
 * XDR (RFC 4506) encoding as libvirt uses it: big-endian, every item padded to 4 bytes.
 * The writer grows one buffer; the reader walks a buffer and refuses to read past its end.
 * Both are the lowest layer of the client, like pg-protocol's buffer-writer/buffer-reader.
 */

/** A malformed or out-of-limit XDR value. `path` names the field where it happened. */
export class XdrError extends Error {
  override readonly name = 'XdrError';
  /** Field names from the outermost struct inward, e.g. `['domains', '[3]', 'name']`. */
  readonly path: string[] = [];
  /** The problem without the field path. */
  readonly detail: string;

  constructor(detail: string) {
    super(detail);
    this.detail = detail;
  }

  /** Prepends a field name; called by struct/array codecs as the error unwinds. */
  within(field: string): this {
    this.path.unshift(field);
    this.message = `${this.path.join('.').replace(/\.\[/g, '[')}: ${this.detail}`;
    return this;
  }
}

const INT_MIN = -0x8000_0000;
const INT_MAX = 0x7fff_ffff;
const UINT_MAX = 0xffff_ffff;
const HYPER_MIN = -(1n << 63n);
const HYPER_MAX = (1n << 63n) - 1n;
const UHYPER_MAX = (1n << 64n) - 1n;

/** Bytes of zero padding that follow `n` bytes of opaque data or string. */
export function padding(n: number): number {
  return (4 - (n & 3)) & 3;
}

function checkInt(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new XdrError(`${what} out of range: ${value}`);
  }
}

/** Appends XDR items to a buffer that doubles when full. */
export class XdrWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initialSize));
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  private ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  int(value: number): this {
    checkInt(value, INT_MIN, INT_MAX, 'int');
    this.ensure(4);
    this.buf.writeInt32BE(value, this.pos);
    this.pos += 4;
    return this;
  }

  uint(value: number): this {
    checkInt(value, 0, UINT_MAX, 'unsigned int');
    this.ensure(4);
    this.buf.writeUInt32BE(value, this.pos);
    this.pos += 4;
    return this;
  }

  hyper(value: bigint): this {
    if (typeof value !== 'bigint' || value < HYPER_MIN || value > HYPER_MAX)
      throw new XdrError(`hyper out of range: ${String(value)}`);
    this.ensure(8);
    this.buf.writeBigInt64BE(value, this.pos);
    this.pos += 8;
    return this;
  }

  uhyper(value: bigint): this {
    if (typeof value !== 'bigint' || value < 0n || value > UHYPER_MAX)
      throw new XdrError(`unsigned hyper out of range: ${String(value)}`);
    this.ensure(8);
    this.buf.writeBigUInt64BE(value, this.pos);
    this.pos += 8;
    return this;
  }

  bool(value: boolean): this {
    return this.int(value ? 1 : 0);
  }

  double(value: number): this {
    this.ensure(8);
    this.buf.writeDoubleBE(value, this.pos);
    this.pos += 8;
    return this;
  }

  /** Fixed-length opaque: exactly `size` bytes, then padding (none for a 16-byte UUID). */
  fixedOpaque(bytes: Uint8Array, size: number): this {
    if (bytes.length !== size) throw new XdrError(`fixed opaque must be ${size} bytes, got ${bytes.length}`);
    return this.raw(bytes, true);
  }

  /** Variable-length opaque: length word, bytes, padding. */
  opaque(bytes: Uint8Array, max = UINT_MAX): this {
    if (bytes.length > max) throw new XdrError(`opaque of ${bytes.length} bytes exceeds maximum ${max}`);
    this.uint(bytes.length);
    return this.raw(bytes, true);
  }

  /** A UTF-8 string: byte length, bytes, padding. */
  string(value: string, max = UINT_MAX): this {
    if (typeof value !== 'string') throw new XdrError(`expected a string, got ${typeof value}`);
    const n = Buffer.byteLength(value, 'utf8');
    if (n > max) throw new XdrError(`string of ${n} bytes exceeds maximum ${max}`);
    this.uint(n);
    this.ensure(n + 3);
    this.buf.write(value, this.pos, n, 'utf8');
    this.pos += n;
    this.zeroPad(n);
    return this;
  }

  /** Raw bytes with no length word (stream payloads, pre-encoded parts); optional padding. */
  raw(bytes: Uint8Array, pad = false): this {
    this.ensure(bytes.length + 3);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    if (pad) this.zeroPad(bytes.length);
    return this;
  }

  /** Overwrites a uint already written at `offset` (the packet length word). */
  patchUint(offset: number, value: number): void {
    checkInt(value, 0, UINT_MAX, 'unsigned int');
    if (offset + 4 > this.pos) throw new RangeError(`patch at ${offset} is past the written data`);
    this.buf.writeUInt32BE(value, offset);
  }

  private zeroPad(n: number): void {
    const p = padding(n);
    for (let i = 0; i < p; i++) this.buf[this.pos++] = 0;
  }

  /** The bytes written. A view of the internal buffer: do not write more afterwards. */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** Reads XDR items from a buffer, failing with XdrError on truncation or bad values. */
export class XdrReader {
  private pos = 0;

  constructor(private readonly buf: Buffer) {}

  /** Bytes not yet read. */
  get remaining(): number {
    return this.buf.length - this.pos;
  }

  get offset(): number {
    return this.pos;
  }

  private need(n: number, what: string): void {
    if (this.pos + n > this.buf.length) {
      throw new XdrError(
        `truncated: ${what} needs ${n} bytes at offset ${this.pos}, only ${this.buf.length - this.pos} left`,
      );
    }
  }

  int(): number {
    this.need(4, 'int');
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint(): number {
    this.need(4, 'unsigned int');
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  hyper(): bigint {
    this.need(8, 'hyper');
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  uhyper(): bigint {
    this.need(8, 'unsigned hyper');
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  bool(): boolean {
    const v = this.int();
    if (v !== 0 && v !== 1) throw new XdrError(`bool must be 0 or 1, got ${v}`);
    return v === 1;
  }

  double(): number {
    this.need(8, 'double');
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }

  /** Exactly `size` bytes plus padding; a copy, so it outlives the packet buffer. */
  fixedOpaque(size: number): Buffer {
    const total = size + padding(size);
    this.need(total, `opaque[${size}]`);
    const out = Buffer.from(this.buf.subarray(this.pos, this.pos + size));
    this.pos += total;
    return out;
  }

  opaque(max = UINT_MAX): Buffer {
    const n = this.uint();
    if (n > max) throw new XdrError(`opaque length ${n} exceeds maximum ${max}`);
    return this.fixedOpaque(n);
  }

  string(max = UINT_MAX): string {
    const n = this.uint();
    if (n > max) throw new XdrError(`string length ${n} exceeds maximum ${max}`);
    const total = n + padding(n);
    this.need(total, `string of ${n} bytes`);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += total;
    return s;
  }

  /** The 0/1 word in front of an optional value (`*T`). */
  present(): boolean {
    const flag = this.uint();
    if (flag > 1) throw new XdrError(`optional flag must be 0 or 1, got ${flag}`);
    return flag === 1;
  }

  /** Everything not yet read, as a view. */
  rest(): Buffer {
    const out = this.buf.subarray(this.pos);
    this.pos = this.buf.length;
    return out;
  }

  /** Throws unless every byte was consumed: a reply longer than its layout means a layout bug. */
  end(): void {
    if (this.pos !== this.buf.length) throw new XdrError(`${this.buf.length - this.pos} unexpected trailing bytes`);
  }
}
