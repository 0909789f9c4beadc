/**
 * The libvirt RPC packet: a length word, a 24-byte header, a payload
 * (virnetprotocol.x). This file holds the constants and the header codec; framing.ts
 * cuts a byte stream into packets.
 */
import { XdrWriter } from './xdr.js';

/** Program numbers. */
export const Program = {
  REMOTE: 0x20008086,
  QEMU: 0x20008087,
  /** "keep" in ASCII. */
  KEEPALIVE: 0x6b656570,
} as const;

/** Every program this client speaks is at version 1. */
export const PROTOCOL_VERSION = 1;

/** Keepalive procedures (program KEEPALIVE, type MESSAGE, empty payload). */
export const KeepaliveProc = { PING: 1, PONG: 2 } as const;

/** `virNetMessageType`. */
export const MessageType = {
  CALL: 0,
  REPLY: 1,
  MESSAGE: 2,
  STREAM: 3,
  CALL_WITH_FDS: 4,
  REPLY_WITH_FDS: 5,
  STREAM_HOLE: 6,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

/** `virNetMessageStatus`. */
export const MessageStatus = { OK: 0, ERROR: 1, CONTINUE: 2 } as const;
export type MessageStatus = (typeof MessageStatus)[keyof typeof MessageStatus];

/** Bytes in the length word plus the header: the smallest possible packet. */
export const PACKET_OVERHEAD = 28;
/** Largest packet libvirt (≥ 7.x) accepts or sends, length word included: 32 MiB. */
export const MAX_PACKET = 33_554_432;
/** Largest stream payload libvirt's own client sends per packet. */
export const STREAM_CHUNK_MAX = 262_120;
/** `REMOTE_STRING_MAX`: longest string in any REMOTE payload. */
export const REMOTE_STRING_MAX = 4_194_304;

/** The fields of a packet header. */
export interface PacketHeader {
  prog: number;
  vers: number;
  proc: number;
  type: number;
  serial: number;
  status: number;
}

/** A whole packet: header and payload (a view into the received bytes). */
export interface Packet {
  header: PacketHeader;
  payload: Buffer;
}

/** Reads the header that follows the length word at `offset`. The caller has checked the size. */
export function decodeHeader(buf: Buffer, offset = 4): PacketHeader {
  return {
    prog: buf.readUInt32BE(offset),
    vers: buf.readUInt32BE(offset + 4),
    proc: buf.readInt32BE(offset + 8),
    type: buf.readInt32BE(offset + 12),
    serial: buf.readUInt32BE(offset + 16),
    status: buf.readInt32BE(offset + 20),
  };
}

/**
 * Starts a packet: a placeholder length word and the header. Write the payload into the
 * returned writer, then call {@link finishPacket}. Writing straight after the header means
 * one buffer per packet, no concatenation.
 */
export function startPacket(header: PacketHeader, payloadHint = 64): XdrWriter {
  const w = new XdrWriter(PACKET_OVERHEAD + payloadHint);
  w.uint(0)
    .uint(header.prog)
    .uint(header.vers)
    .int(header.proc)
    .int(header.type)
    .uint(header.serial)
    .int(header.status);
  return w;
}

/** Fills in the length word and returns the packet's bytes. */
export function finishPacket(w: XdrWriter): Buffer {
  if (w.length > MAX_PACKET)
    throw new RangeError(`packet of ${w.length} bytes exceeds libvirt's maximum of ${MAX_PACKET}`);
  w.patchUint(0, w.length);
  return w.finish();
}

/** A packet with a pre-encoded (or raw stream) payload. */
export function encodePacket(header: PacketHeader, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const w = startPacket(header, payload.length);
  w.raw(payload);
  return finishPacket(w);
}

/** A short human description of a header for error messages. */
export function describeHeader(h: PacketHeader): string {
  const prog =
    h.prog === Program.REMOTE ? 'REMOTE' : h.prog === Program.KEEPALIVE ? 'KEEPALIVE' : `0x${h.prog.toString(16)}`;
  return `prog ${prog} proc ${h.proc} type ${h.type} serial ${h.serial} status ${h.status}`;
}
