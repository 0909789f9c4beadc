/**
 * Cuts a byte stream into packets. Chunks may split a packet anywhere (even inside the
 * length word) or carry several packets; the parser keeps the unread chunks in a list and
 * copies bytes only once per packet that spans chunks, so a 256 KiB stream packet that
 * arrives in 64 KiB pieces costs one copy, not one per piece (pg-protocol's approach).
 */
import { ProtocolError } from './errors.js';
import { MAX_PACKET, PACKET_OVERHEAD, decodeHeader, type Packet } from './packet.js';

/** Incremental packet parser. After it throws, it stays failed: the stream is out of sync. */
export class PacketParser {
  private chunks: Buffer[] = [];
  /** Offset into chunks[0] of the first unread byte. */
  private head = 0;
  private buffered = 0;
  private failure: ProtocolError | null = null;

  constructor(private readonly maxPacket = MAX_PACKET) {}

  /** Bytes received but not yet part of a returned packet. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /**
   * Adds received bytes and returns every packet now complete, in order.
   * @throws ProtocolError for a length word outside [28, maxPacket].
   */
  push(chunk: Buffer): Packet[] {
    if (this.failure) throw this.failure;
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const out: Packet[] = [];
    while (this.buffered >= 4) {
      const length = this.peekLength();
      if (length < PACKET_OVERHEAD || length > this.maxPacket) {
        this.failure = new ProtocolError(
          length < PACKET_OVERHEAD
            ? `packet length ${length} is smaller than the ${PACKET_OVERHEAD}-byte header`
            : `packet length ${length} exceeds the maximum of ${this.maxPacket} bytes`,
        );
        this.chunks = [];
        this.buffered = 0;
        throw this.failure;
      }
      if (this.buffered < length) break;
      const bytes = this.take(length);
      out.push({ header: decodeHeader(bytes, 4), payload: bytes.subarray(PACKET_OVERHEAD) });
    }
    return out;
  }

  /** The length word, which may straddle chunks. */
  private peekLength(): number {
    const first = this.chunks[0]!;
    if (first.length - this.head >= 4) return first.readUInt32BE(this.head);
    const word = Buffer.allocUnsafe(4);
    let filled = 0;
    for (let i = 0; filled < 4; i++) {
      const c = this.chunks[i]!;
      const start = i === 0 ? this.head : 0;
      filled += c.copy(word, filled, start, Math.min(c.length, start + 4 - filled));
    }
    return word.readUInt32BE(0);
  }

  /** Removes `n` buffered bytes: a view when one chunk holds them, one copy otherwise. */
  private take(n: number): Buffer {
    this.buffered -= n;
    const first = this.chunks[0]!;
    if (first.length - this.head >= n) {
      const view = first.subarray(this.head, this.head + n);
      this.head += n;
      if (this.head === first.length) {
        this.chunks.shift();
        this.head = 0;
      }
      return view;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0]!;
      const avail = c.length - this.head;
      const want = n - filled;
      if (avail <= want) {
        c.copy(out, filled, this.head);
        filled += avail;
        this.chunks.shift();
        this.head = 0;
      } else {
        c.copy(out, filled, this.head, this.head + want);
        this.head += want;
        filled += want;
      }
    }
    return out;
  }
}
