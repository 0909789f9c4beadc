/**
 * The RPC core over one byte stream: serials, the pending-call map, routing of incoming
 * packets, keepalive, and failing everything at once when the stream goes away. It knows
 * packets and payload bytes, not procedures; client.ts adds the typed layer.
 *
 * Routing rules (libvirt-rpc.md): REPLY → the call with that serial, once (a stream opened
 * by the call carries only STREAM packets afterwards); STREAM → the stream with that serial; MESSAGE →
 * the handler for program + procedure (events carry serial 1, so never by serial);
 * KEEPALIVE PING → PONG at once.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { ConnectionClosedError, LibvirtError, ProtocolError } from './errors.js';
import { PacketParser } from './framing.js';
import {
  KeepaliveProc,
  MessageStatus,
  MessageType,
  type Packet,
  type PacketHeader,
  PROTOCOL_VERSION,
  Program,
  describeHeader,
  encodePacket,
  finishPacket,
  startPacket,
} from './packet.js';
import { remoteError } from './types.js';
import { XdrReader, type XdrWriter } from './xdr.js';

/** Keepalive timing. Defaults follow libvirt's own client: ping after 5 s idle, dead after 30 s. */
export interface KeepaliveOptions {
  /** Send a PING when nothing has arrived for this long (ms). Default 5000. */
  intervalMs?: number;
  /** Fail the connection when nothing at all has arrived for this long (ms). Default 30000. */
  deadAfterMs?: number;
}

/** Receives the packets of one stream (opened by a call whose serial it shares). */
export interface StreamHandler {
  /** A STREAM or STREAM_HOLE packet for this serial. */
  packet(header: PacketHeader, payload: Buffer): void;
  /** The connection ended; the stream is dead. */
  closed(error: ConnectionClosedError): void;
}

interface PendingCall {
  prog: number;
  name: string;
  resolve(payload: Buffer): void;
  reject(error: Error): void;
}

type MessageHandler = (header: PacketHeader, payload: Buffer) => void;

/** How many finished stream serials to remember, so that late packets for them are dropped quietly. */
const FINISHED_STREAM_MEMORY = 64;

/** Decodes a `remote_error` payload into a LibvirtError (ProtocolError if it does not decode). */
export function decodeRemoteError(payload: Buffer, procedure?: string): Error {
  try {
    return new LibvirtError(remoteError.decode(new XdrReader(payload)), procedure);
  } catch (err) {
    return new ProtocolError(
      `undecodable error payload${procedure ? ` for ${procedure}` : ''}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/** One libvirt RPC connection. Emits `close` once, with the reason (undefined for a clean close). */
export class RpcConnection extends EventEmitter<{ close: [reason: Error | undefined] }> {
  private readonly parser: PacketParser;
  private nextSerial = 1;
  private readonly pending = new Map<number, PendingCall>();
  private readonly streams = new Map<number, StreamHandler>();
  private readonly finishedStreams: number[] = [];
  private readonly handlers = new Map<string, MessageHandler>();
  private drainWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private failure: ConnectionClosedError | null = null;
  private closing = false;
  private lastRx = Date.now();
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private pauses = 0;

  constructor(
    private readonly duplex: Duplex,
    options: { maxPacket?: number } = {},
  ) {
    super();
    this.parser = new PacketParser(options.maxPacket);
    duplex.on('data', (chunk: Buffer) => this.onData(chunk));
    // An 'error' listener stays attached for the stream's whole life: an emitted 'error'
    // without one would crash the process.
    duplex.on('error', (err: Error) =>
      this.fail(new ConnectionClosedError(`connection to libvirtd failed: ${err.message}`, { cause: err }), err),
    );
    duplex.on('end', () => this.peerGone('libvirtd closed the connection'));
    duplex.on('close', () => this.peerGone('the connection to libvirtd was closed'));
    duplex.on('drain', () => this.settleDrainWaiters(null));
  }

  /** True once the connection has failed or been closed; every further call rejects. */
  get closed(): boolean {
    return this.failure !== null;
  }

  /** Why the connection ended, once it has. */
  get closedError(): ConnectionClosedError | null {
    return this.failure;
  }

  /** Number of calls awaiting a reply. */
  get pendingCount(): number {
    return this.pending.size;
  }

  private allocSerial(): number {
    for (;;) {
      const serial = this.nextSerial;
      this.nextSerial = serial >= 0xffff_ffff ? 1 : serial + 1;
      if (!this.pending.has(serial) && !this.streams.has(serial)) return serial;
    }
  }

  /**
   * Sends a CALL. The waiter (and the stream, if any) is registered before the bytes are
   * written, so a fast reply always finds it; if the write fails, both are removed and the
   * call rejects. Throws (synchronously) if the arguments do not encode.
   */
  request(
    prog: number,
    proc: number,
    name: string,
    encodeArgs: (w: XdrWriter) => void,
    stream?: StreamHandler,
  ): { serial: number; reply: Promise<Buffer> } {
    if (this.failure) return { serial: 0, reply: Promise.reject(this.failure) };
    const serial = this.allocSerial();
    const w = startPacket({
      prog,
      vers: PROTOCOL_VERSION,
      proc,
      type: MessageType.CALL,
      serial,
      status: MessageStatus.OK,
    });
    encodeArgs(w);
    const bytes = finishPacket(w);
    const reply = new Promise<Buffer>((resolve, reject) => this.pending.set(serial, { prog, name, resolve, reject }));
    if (stream) this.streams.set(serial, stream);
    this.duplex.write(bytes, (err) => {
      if (!err) return;
      const call = this.pending.get(serial);
      this.pending.delete(serial);
      this.streams.delete(serial);
      call?.reject(this.failure ?? new ConnectionClosedError(`could not send ${name}: ${err.message}`, { cause: err }));
    });
    return { serial, reply };
  }

  /**
   * Writes one packet that expects no reply (stream data, keepalive). Returns false when the
   * transport's buffer is full: await {@link waitWritable} before writing more.
   */
  send(header: PacketHeader, payload?: Uint8Array): boolean {
    if (this.failure) throw this.failure;
    return this.duplex.write(encodePacket(header, payload));
  }

  /** Resolves when the transport can take more bytes; rejects if the connection ends first. */
  waitWritable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.duplex.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve, reject) => this.drainWaiters.push({ resolve, reject }));
  }

  private settleDrainWaiters(error: Error | null): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) {
      if (error) w.reject(error);
      else w.resolve();
    }
  }

  /** Routes MESSAGE packets of `prog`/`proc` to `handler` (one handler per pair). */
  onMessage(prog: number, proc: number, handler: MessageHandler): void {
    this.handlers.set(`${prog}:${proc}`, handler);
  }

  /** Forgets a stream; later packets for its serial are dropped instead of failing the connection. */
  endStream(serial: number): void {
    if (!this.streams.delete(serial)) return;
    this.finishedStreams.push(serial);
    if (this.finishedStreams.length > FINISHED_STREAM_MEMORY) this.finishedStreams.shift();
  }

  /**
   * Stops reading from the transport (a download whose sink is full). Nested calls count;
   * while paused, silence is not taken as a dead peer.
   */
  pauseReading(): void {
    if (this.pauses++ === 0) this.duplex.pause();
  }

  resumeReading(): void {
    if (this.pauses === 0) return;
    if (--this.pauses === 0) {
      this.lastRx = Date.now();
      this.duplex.resume();
    }
  }

  /**
   * Starts our side of keepalive: PING after `intervalMs` of silence, fail after
   * `deadAfterMs`. Only once the daemon has agreed to keepalive (feature 10): a daemon that
   * has not may treat the unknown program as a protocol violation. PINGs from the daemon
   * are answered regardless.
   */
  startKeepalive(options: KeepaliveOptions = {}): void {
    const interval = options.intervalMs ?? 5_000;
    const deadAfter = options.deadAfterMs ?? 30_000;
    if (this.failure || this.keepaliveTimer) return;
    this.lastRx = Date.now();
    this.keepaliveTimer = setInterval(
      () => this.keepaliveTick(interval, deadAfter),
      Math.max(1, Math.min(interval, deadAfter)),
    );
    // An idle client must not keep the process alive.
    this.keepaliveTimer.unref();
  }

  private keepaliveTick(interval: number, deadAfter: number): void {
    if (this.failure) return;
    const now = Date.now();
    if (this.pauses > 0) {
      this.lastRx = now;
      return;
    }
    const idle = now - this.lastRx;
    if (idle >= deadAfter) {
      const err = new ProtocolError(`no data from libvirtd for ${Math.round(idle / 1000)} s: the connection is dead`);
      this.fail(new ConnectionClosedError(err.message, { cause: err }), err);
    } else if (idle >= interval) {
      this.send({
        prog: Program.KEEPALIVE,
        vers: PROTOCOL_VERSION,
        proc: KeepaliveProc.PING,
        type: MessageType.MESSAGE,
        serial: 0,
        status: MessageStatus.OK,
      });
    }
  }

  private onData(chunk: Buffer): void {
    if (this.failure) return;
    this.lastRx = Date.now();
    try {
      for (const packet of this.parser.push(chunk)) {
        this.dispatch(packet);
        if (this.failure) return;
      }
    } catch (err) {
      const cause = err instanceof Error ? err : new Error(String(err));
      this.fail(new ConnectionClosedError(`protocol error from libvirtd: ${cause.message}`, { cause }), cause);
    }
  }

  private dispatch({ header: h, payload }: Packet): void {
    if (h.prog === Program.KEEPALIVE) {
      if (h.type !== MessageType.MESSAGE) throw new ProtocolError(`unexpected keepalive packet (${describeHeader(h)})`);
      if (h.proc === KeepaliveProc.PING) {
        this.send({
          prog: Program.KEEPALIVE,
          vers: PROTOCOL_VERSION,
          proc: KeepaliveProc.PONG,
          type: MessageType.MESSAGE,
          serial: 0,
          status: MessageStatus.OK,
        });
      }
      return;
    }
    switch (h.type) {
      case MessageType.REPLY:
        return this.dispatchReply(h, payload);
      case MessageType.MESSAGE: {
        const handler = this.handlers.get(`${h.prog}:${h.proc}`);
        // Unknown events are dropped: the daemon may send ones registered by nobody we know.
        if (!handler) return;
        try {
          handler(h, payload);
        } catch {
          // A malformed event or a throwing listener must not take the connection down.
        }
        return;
      }
      case MessageType.STREAM:
      case MessageType.STREAM_HOLE: {
        const stream = this.streams.get(h.serial);
        if (stream) return stream.packet(h, payload);
        if (this.finishedStreams.includes(h.serial)) return;
        throw new ProtocolError(
          `stream packet for serial ${h.serial}, which has no open stream (${describeHeader(h)})`,
        );
      }
      default:
        throw new ProtocolError(`unexpected packet type ${h.type} from the daemon (${describeHeader(h)})`);
    }
  }

  private dispatchReply(h: PacketHeader, payload: Buffer): void {
    const call = this.pending.get(h.serial);
    if (call) {
      if (call.prog !== h.prog)
        throw new ProtocolError(`reply for serial ${h.serial} carries the wrong program (${describeHeader(h)})`);
      this.pending.delete(h.serial);
      if (h.status === MessageStatus.OK) call.resolve(payload);
      else if (h.status === MessageStatus.ERROR) call.reject(decodeRemoteError(payload, call.name));
      else {
        // The call is already out of the pending map: settle it here, or nothing ever will.
        const err = new ProtocolError(`reply for ${call.name} has invalid status ${h.status}`);
        call.reject(err);
        throw err;
      }
      return;
    }
    // A stream's call is answered once; the daemon confirms or fails the stream with STREAM
    // packets. A second REPLY on its serial is another call's answer gone astray: taking it
    // as the stream's confirmation would end a download early, as if it had succeeded.
    if (this.streams.has(h.serial))
      throw new ProtocolError(
        `reply for serial ${h.serial}, whose call was already answered and which now carries a stream (${describeHeader(h)})`,
      );
    if (this.finishedStreams.includes(h.serial)) return;
    throw new ProtocolError(`reply for serial ${h.serial}, which no call is waiting for (${describeHeader(h)})`);
  }

  private peerGone(message: string): void {
    if (this.closing) this.shutdown(new ConnectionClosedError('the connection was closed'), undefined);
    else this.fail(new ConnectionClosedError(message), new ConnectionClosedError(message));
  }

  /** Marks the start of an orderly close: the daemon hanging up after this is expected. */
  beginClose(): void {
    this.closing = true;
  }

  /** Fails the connection: every pending call and stream rejects with `error`; `close` is emitted with `reason`. */
  fail(error: ConnectionClosedError, reason: Error): void {
    this.shutdown(error, reason);
  }

  /** Ends the connection now. Idempotent. */
  shutdown(error: ConnectionClosedError, reason: Error | undefined): void {
    if (this.failure) return;
    this.failure = error;
    if (this.keepaliveTimer) clearInterval(this.keepaliveTimer);
    this.keepaliveTimer = undefined;
    const calls = [...this.pending.values()];
    const streams = [...this.streams.values()];
    this.pending.clear();
    this.streams.clear();
    for (const call of calls) call.reject(error);
    for (const stream of streams) stream.closed(error);
    this.settleDrainWaiters(error);
    this.duplex.destroy();
    this.emit('close', reason);
  }

  /** Ends the writable side and waits (bounded) for the transport to close, then destroys it. */
  async endTransport(timeoutMs: number): Promise<void> {
    if (this.duplex.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.duplex.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.duplex.end();
      // A half-closed socket emits 'close' only after the peer ends too; keep reading so it can.
      this.duplex.resume();
    });
  }
}
