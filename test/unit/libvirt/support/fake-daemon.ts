/**
 * A scripted libvirtd for unit tests: it reads the client's packets from the other end of
 * a {@link duplexPair} and lets a test answer them (or misbehave) packet by packet.
 */
import type { Duplex } from 'node:stream';
import { LibvirtClient, type ClientOptions } from '../../../../electron/libvirt/client.js';
import { type Codec, encodeToBuffer } from '../../../../electron/libvirt/codec.js';
import { PacketParser } from '../../../../electron/libvirt/framing.js';
import {
  MessageStatus,
  MessageType,
  type Packet,
  type PacketHeader,
  Program,
  encodePacket,
} from '../../../../electron/libvirt/packet.js';
import { type ProcedureName, procedures } from '../../../../electron/libvirt/procedures.js';
import { remoteError } from '../../../../electron/libvirt/types.js';
import { duplexPair } from './duplex-pair.js';

type Responder = (call: Packet, daemon: FakeDaemon) => void;

export class FakeDaemon {
  /** Every packet received, in order. */
  readonly received: Packet[] = [];
  private readonly queue: Packet[] = [];
  private waiters: Array<{ match: (p: Packet) => boolean; resolve: (p: Packet) => void }> = [];
  private readonly responders = new Map<number, Responder>();
  private readonly parser = new PacketParser();

  constructor(readonly end: Duplex) {
    end.on('data', (chunk: Buffer) => {
      for (const packet of this.parser.push(chunk)) this.onPacket(packet);
    });
    end.on('error', () => undefined);
  }

  private onPacket(packet: Packet): void {
    // Copy: the payload is a view of a chunk that the stream may reuse.
    const copy = { header: packet.header, payload: Buffer.from(packet.payload) };
    this.received.push(copy);
    const responder = copy.header.type === MessageType.CALL ? this.responders.get(copy.header.proc) : undefined;
    if (responder) return responder(copy, this);
    const i = this.waiters.findIndex((w) => w.match(copy));
    if (i >= 0) {
      const [w] = this.waiters.splice(i, 1);
      w!.resolve(copy);
    } else {
      this.queue.push(copy);
    }
  }

  /** The next unanswered packet matching `match` (default: any). */
  next(match: (p: Packet) => boolean = () => true): Promise<Packet> {
    const i = this.queue.findIndex(match);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0]!);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The next CALL of procedure `name`. */
  nextCall(name: ProcedureName): Promise<Packet> {
    const proc = procedures[name].proc;
    return this.next((p) => p.header.type === MessageType.CALL && p.header.proc === proc);
  }

  /** Answers every future CALL of `name` automatically. */
  handle(name: ProcedureName, responder: Responder): this {
    this.responders.set(procedures[name].proc, responder);
    return this;
  }

  /** Answers the handshake: no auth, keepalive supported (or not), open succeeds. */
  handshake(options: { keepalive?: boolean; auth?: number[] } = {}): this {
    return this.handle('AUTH_LIST', (c, d) =>
      d.reply(c, encodeToBuffer(procedures.AUTH_LIST.reply, options.auth ?? [0])),
    )
      .handle('CONNECT_SUPPORTS_FEATURE', (c, d) =>
        d.reply(c, encodeToBuffer(procedures.CONNECT_SUPPORTS_FEATURE.reply, options.keepalive ?? false)),
      )
      .handle('CONNECT_OPEN', (c, d) => d.reply(c))
      .handle('CONNECT_CLOSE', (c, d) => d.reply(c));
  }

  send(header: Partial<PacketHeader>, payload?: Uint8Array): void {
    const full: PacketHeader = {
      prog: Program.REMOTE,
      vers: 1,
      proc: 0,
      type: MessageType.REPLY,
      serial: 0,
      status: MessageStatus.OK,
      ...header,
    };
    this.end.write(encodePacket(full, payload));
  }

  /** Sends raw bytes. */
  raw(bytes: Uint8Array): void {
    this.end.write(bytes);
  }

  /** REPLY/OK to `call`. */
  reply(call: Packet, payload?: Uint8Array): void {
    this.send(
      { prog: call.header.prog, proc: call.header.proc, serial: call.header.serial, type: MessageType.REPLY },
      payload,
    );
  }

  /** REPLY/OK encoded with the procedure's reply codec. */
  replyWith<T>(call: Packet, codec: Codec<T>, value: T): void {
    this.reply(call, encodeToBuffer(codec, value));
  }

  /** REPLY/ERROR to `call`. */
  replyError(call: Packet, code: number, message: string, type: number = MessageType.REPLY): void {
    this.send(
      { prog: call.header.prog, proc: call.header.proc, serial: call.header.serial, type, status: MessageStatus.ERROR },
      errorPayload(code, message),
    );
  }

  /** A STREAM packet for the stream opened by `call`. */
  stream(call: Packet, status: number, payload?: Uint8Array): void {
    this.send({ proc: call.header.proc, serial: call.header.serial, type: MessageType.STREAM, status }, payload);
  }
}

/** A `remote_error` payload. */
export function errorPayload(code: number, message: string, domain = 10): Buffer {
  return encodeToBuffer(remoteError, {
    code,
    domain,
    message,
    level: 2,
    dom: null,
    str1: 'extra 1',
    str2: null,
    str3: null,
    int1: -1,
    int2: 7,
    net: null,
  });
}

/** A client and a fake daemon joined by an in-memory pair. */
export function clientAndDaemon(options: ClientOptions & { highWaterMark?: number } = {}): {
  client: LibvirtClient;
  daemon: FakeDaemon;
} {
  const pair = duplexPair(options.highWaterMark);
  const client = LibvirtClient.fromStream(pair.client, { closeTimeoutMs: 200, ...options });
  return { client, daemon: new FakeDaemon(pair.daemon) };
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
