/**
 * One libvirt data stream: the packets that share the serial of the call that opened it.
 * Incoming: STREAM/CONTINUE with bytes (data), empty STREAM/CONTINUE (EOF), STREAM/OK (the
 * daemon confirms our finish or abort), STREAM/ERROR with a remote_error. Outgoing: data,
 * finish (empty STREAM/OK), abort (empty STREAM/ERROR). The daemon does not ack data
 * packets: flow control is the transport's, so senders await its drain.
 */
import { ConnectionClosedError, ProtocolError } from './errors.js';
import { type RpcConnection, type StreamHandler, decodeRemoteError } from './connection.js';
import { MessageStatus, MessageType, type PacketHeader, PROTOCOL_VERSION, Program } from './packet.js';
import type { XdrWriter } from './xdr.js';

/** What a stream's consumer is told. */
export interface StreamEvents {
  data(chunk: Buffer): void;
  /** The empty STREAM/CONTINUE: the daemon has no more data. */
  eof(): void;
  /** The daemon's STREAM/OK: our finish (or abort) is confirmed. */
  ok(): void;
  /** A LibvirtError from the daemon, a protocol error, or ConnectionClosedError. */
  error(err: Error): void;
}

/** The stream opened by one call. Create, then {@link open}; {@link end} when done. */
export class StreamChannel implements StreamHandler {
  private serial = 0;
  private settled = false;
  private events: StreamEvents | null = null;
  /** Set once the daemon has finished the stream (OK or ERROR) or the connection died. */
  failure: Error | null = null;
  /** True once the daemon confirmed with STREAM/OK. */
  confirmed = false;

  constructor(
    private readonly conn: RpcConnection,
    private readonly proc: number,
    private readonly name: string,
  ) {}

  /** Sends the CALL that opens the stream and waits for its reply. */
  async open(encodeArgs: (w: XdrWriter) => void, events: StreamEvents): Promise<void> {
    this.events = events;
    const { serial, reply } = this.conn.request(Program.REMOTE, this.proc, this.name, encodeArgs, this);
    this.serial = serial;
    try {
      const payload = await reply;
      // The opening calls reply with nothing: bytes here are another call's answer, not this stream's go-ahead.
      if (payload.length > 0) {
        // The daemon may hold a stream open on this serial all the same: tell it to drop it.
        this.abort();
        throw new ProtocolError(
          `${this.name}: the reply that opens the stream carries ${payload.length} bytes; it should be empty`,
        );
      }
    } catch (err) {
      this.end();
      throw err;
    }
  }

  packet(h: PacketHeader, payload: Buffer): void {
    const events = this.events;
    if (!events || this.settled) return;
    if (h.type === MessageType.STREAM_HOLE) {
      // Holes are only sent to clients that asked for sparse streams; this one never does.
      return this.settle(new ProtocolError(`${this.name}: unexpected sparse-stream hole`));
    }
    if (h.type !== MessageType.STREAM)
      return this.settle(new ProtocolError(`${this.name}: unexpected packet type ${h.type} on the stream`));
    if (h.status === MessageStatus.CONTINUE) {
      if (payload.length > 0) events.data(payload);
      else events.eof();
      return;
    }
    if (h.status === MessageStatus.OK) {
      this.settled = true;
      this.confirmed = true;
      events.ok();
      return;
    }
    if (h.status === MessageStatus.ERROR) return this.settle(decodeRemoteError(payload, this.name));
    this.settle(new ProtocolError(`${this.name}: stream packet with invalid status ${h.status}`));
  }

  closed(error: ConnectionClosedError): void {
    if (!this.settled) this.settle(error);
  }

  private settle(err: Error): void {
    this.settled = true;
    this.failure = err;
    this.events?.error(err);
  }

  /** True once no more packets will come from the daemon for this stream. */
  get done(): boolean {
    return this.settled;
  }

  private header(status: number): PacketHeader {
    return {
      prog: Program.REMOTE,
      vers: PROTOCOL_VERSION,
      proc: this.proc,
      type: MessageType.STREAM,
      serial: this.serial,
      status,
    };
  }

  /** Sends bytes (callers keep pieces ≤ STREAM_CHUNK_MAX); waits for drain when the transport is full. */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.conn.send(this.header(MessageStatus.CONTINUE), chunk)) await this.conn.waitWritable();
  }

  /** Sends the finish marker (empty STREAM/OK). */
  finish(): void {
    if (!this.conn.closed) this.conn.send(this.header(MessageStatus.OK));
  }

  /** Sends the abort marker (empty STREAM/ERROR). */
  abort(): void {
    if (!this.conn.closed) this.conn.send(this.header(MessageStatus.ERROR));
  }

  /** Stops routing this serial here; late packets are dropped. */
  end(): void {
    this.conn.endStream(this.serial);
  }

  pauseReading(): void {
    this.conn.pauseReading();
  }

  resumeReading(): void {
    this.conn.resumeReading();
  }
}
