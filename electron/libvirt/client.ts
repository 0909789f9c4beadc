/**
 * LibvirtClient: the typed client over one connection. `connect(dialer, { uri })` dials,
 * runs the handshake and returns a client whose `call(name, args)` is typed from the
 * procedure table; streams (volume upload/download, console) and lifecycle events hang
 * off the same object.
 */
import { EventEmitter } from 'node:events';
import type { Duplex, Readable, Writable } from 'node:stream';
import type { Dialer } from '../transport/dialer.js';
import { decodeAll } from './codec.js';
import { AuthType, ConnectFlags, ConsoleFlags, Feature } from './constants.js';
import { type KeepaliveOptions, RpcConnection } from './connection.js';
import { ConnectionClosedError, ErrorCode, LibvirtError, ProtocolError } from './errors.js';
import {
  DomainEvents,
  LIFECYCLE_EVENTS,
  type LifecycleEvent,
  type LifecycleListener,
  METADATA_CHANGE_EVENTS,
  type MetadataChangeEvent,
  type MetadataChangeListener,
  type SubscribeOptions,
} from './events.js';
import { Program } from './packet.js';
import {
  type CallArgs,
  type CallName,
  type Caller,
  type LibvirtApi,
  type ReplyOf,
  createApi,
  spec,
} from './procedures.js';
import { type TransferOptions, downloadVolume, openConsole, uploadVolume } from './streams.js';
import type { DomainRef, StorageVolRef } from './types.js';

/** Options for a client over an existing stream. */
export interface ClientOptions {
  /** How long `close()` waits for CONNECT_CLOSE's reply and the transport to close (ms). Default 2000. */
  closeTimeoutMs?: number;
  /** Largest packet accepted from the daemon. Default 32 MiB, libvirt's own limit. */
  maxPacket?: number;
}

/** The handshake's parameters. */
export interface OpenOptions {
  /** The hypervisor URI, e.g. `qemu:///system` or `test:///default`; `''` lets the daemon choose. */
  uri: string;
  /** Open read-only (VIR_CONNECT_RO). */
  readOnly?: boolean;
  /** Keepalive timing, or `false` for none. On by default. */
  keepalive?: KeepaliveOptions | false;
  /**
   * Called when the daemon asks for polkit authorisation, before the (possibly long,
   * interactive) AUTH_POLKIT call: a UI can say "waiting for authorisation".
   */
  onPolkit?: () => void;
}

/** Options for {@link LibvirtClient.connect}. */
export interface ConnectOptions extends ClientOptions, OpenOptions {
  signal?: AbortSignal;
}

const AUTH_NAMES: Record<number, string> = {
  [AuthType.NONE]: 'none',
  [AuthType.SASL]: 'SASL',
  [AuthType.POLKIT]: 'polkit',
};

/** A libvirt connection. Emits `close` once, with the reason (undefined after `close()`). */
export class LibvirtClient extends EventEmitter<{ close: [reason: Error | undefined] }> implements Caller {
  /** The same procedures as methods: `client.api.connectGetUri()`. */
  readonly api: LibvirtApi;
  private readonly conn: RpcConnection;
  private readonly closeTimeoutMs: number;
  private readonly features = new Map<number, Promise<boolean>>();
  private readonly lifecycle: DomainEvents<LifecycleEvent>;
  private readonly metadataChanges: DomainEvents<MetadataChangeEvent>;
  private closePromise: Promise<void> | null = null;

  /** Dials, runs the handshake and returns an open client. On any failure the stream is destroyed. */
  static async connect(dialer: Dialer, options: ConnectOptions): Promise<LibvirtClient> {
    const duplex = await dialer.dial(options.signal ? { signal: options.signal } : undefined);
    const client = new LibvirtClient(duplex, options);
    const onAbort = (): void =>
      client.destroy(new ConnectionClosedError('connecting was cancelled', { cause: options.signal?.reason }));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await client.open(options);
      return client;
    } catch (err) {
      client.destroy(err instanceof Error ? err : new Error(String(err)));
      throw err;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A client over an already-open stream, without a handshake (tests, custom transports). Call {@link open} next. */
  static fromStream(duplex: Duplex, options: ClientOptions = {}): LibvirtClient {
    return new LibvirtClient(duplex, options);
  }

  constructor(duplex: Duplex, options: ClientOptions = {}) {
    super();
    this.conn = new RpcConnection(duplex, options.maxPacket === undefined ? {} : { maxPacket: options.maxPacket });
    this.closeTimeoutMs = options.closeTimeoutMs ?? 2_000;
    this.conn.on('close', (reason) => this.emit('close', reason));
    this.api = createApi(this);
    this.lifecycle = new DomainEvents(this, this.conn, LIFECYCLE_EVENTS);
    this.metadataChanges = new DomainEvents(this, this.conn, METADATA_CHANGE_EVENTS);
  }

  /** True once the connection has ended. */
  get closed(): boolean {
    return this.conn.closed;
  }

  /** Calls awaiting a reply right now. */
  get pendingCalls(): number {
    return this.conn.pendingCount;
  }

  /**
   * The handshake: AUTH_LIST → AUTH_POLKIT if required → CONNECT_SUPPORTS_FEATURE(keepalive)
   * → CONNECT_OPEN. Each step awaits its reply before the next is sent: the daemon
   * dispatches calls on worker threads, so a call pipelined behind AUTH_LIST or
   * CONNECT_OPEN can overtake it and fail ("authentication required").
   */
  async open(options: OpenOptions): Promise<void> {
    const methods = await this.call('AUTH_LIST');
    if (methods.length > 0 && !methods.includes(AuthType.NONE)) {
      if (!methods.includes(AuthType.POLKIT)) {
        const names = methods.map((m) => AUTH_NAMES[m] ?? `type ${m}`).join(', ');
        throw LibvirtError.local(
          ErrorCode.AUTH_UNAVAILABLE,
          `libvirtd requires ${names} authentication; this client supports polkit and none`,
          'AUTH_LIST',
        );
      }
      options.onPolkit?.();
      const complete = await this.call('AUTH_POLKIT');
      if (complete === 0)
        throw LibvirtError.local(ErrorCode.AUTH_FAILED, 'polkit authorisation was not completed', 'AUTH_POLKIT');
    }
    if (options.keepalive !== false) {
      // Must come before CONNECT_OPEN: the daemon answers this feature without a hypervisor connection.
      if (await this.call('CONNECT_SUPPORTS_FEATURE', { feature: Feature.PROGRAM_KEEPALIVE })) {
        this.conn.startKeepalive(options.keepalive ?? {});
      }
    }
    // The name is sent present even when empty: an absent name fails on current daemons.
    await this.call('CONNECT_OPEN', { name: options.uri, flags: options.readOnly ? ConnectFlags.RO : 0 });
  }

  /** Calls a procedure of the table, typed by name: `call('DOMAIN_GET_XML_DESC', { dom, flags: 0 })`. */
  async call<K extends CallName>(name: K, ...args: CallArgs<K>): Promise<ReplyOf<K>> {
    const row = spec(name);
    if (row.kind !== 'call') throw new TypeError(`${name} is not a plain call (it is a ${row.kind})`);
    if (this.closePromise && name !== 'CONNECT_CLOSE')
      throw this.conn.closedError ?? new ConnectionClosedError('the client is closing');
    const { reply } = this.conn.request(Program.REMOTE, row.proc, name, (w) => row.args.encode(w, args[0]));
    const payload = await reply;
    try {
      return decodeAll(row.reply, payload) as ReplyOf<K>;
    } catch (err) {
      throw new ProtocolError(`cannot decode the reply to ${name}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Sends a raw CALL and returns the raw reply payload: procedures outside the table. */
  async callRaw(proc: number, payload: Uint8Array = Buffer.alloc(0), prog: number = Program.REMOTE): Promise<Buffer> {
    const { reply } = this.conn.request(prog, proc, `procedure ${proc}`, (w) => w.raw(payload));
    return reply;
  }

  /** Whether the daemon supports a `virDrvFeature` (asked once per feature, then cached). */
  supportsFeature(feature: number): Promise<boolean> {
    let known = this.features.get(feature);
    if (!known) {
      known = this.call('CONNECT_SUPPORTS_FEATURE', { feature });
      // A failed probe is not cached, so a later attempt can ask again.
      known.catch(() => this.features.delete(feature));
      this.features.set(feature, known);
    }
    return known;
  }

  /**
   * Subscribes to domain lifecycle events (all domains, or the one in `options.dom`). The
   * first subscriber registers with the daemon; the last to leave deregisters. Resolves to
   * the unsubscribe function once the daemon has confirmed.
   */
  onLifecycle(listener: LifecycleListener, options: SubscribeOptions = {}): Promise<() => Promise<void>> {
    return this.lifecycle.subscribe(listener, options);
  }

  /**
   * Subscribes to metadata changes (description, title or an element, set live or in the
   * definition, by any client), registered and deregistered like {@link onLifecycle}.
   */
  onMetadataChange(listener: MetadataChangeListener, options: SubscribeOptions = {}): Promise<() => Promise<void>> {
    return this.metadataChanges.subscribe(listener, options);
  }

  /** Lifecycle events as an async iterator; ends when `signal` aborts or the loop breaks. */
  lifecycleEvents(options: SubscribeOptions & { signal?: AbortSignal } = {}): AsyncIterableIterator<LifecycleEvent> {
    return this.lifecycle.iterate(options);
  }

  /** Uploads `source` into a volume through a libvirt stream, with backpressure. Resolves with the bytes sent. */
  uploadVolume(vol: StorageVolRef, source: Readable, options: TransferOptions = {}): Promise<number> {
    return uploadVolume(this.conn, vol, source, options);
  }

  /** Downloads a volume into `sink`, respecting the sink's backpressure. Resolves with the bytes received. */
  downloadVolume(vol: StorageVolRef, sink: Writable, options: TransferOptions = {}): Promise<number> {
    return downloadVolume(this.conn, vol, sink, options);
  }

  /** Opens a domain's console (or the device `devName`) as a two-way byte stream. */
  openConsole(dom: DomainRef, devName: string | null = null, flags: number = ConsoleFlags.SAFE): Promise<Duplex> {
    return openConsole(this.conn, dom, devName, flags);
  }

  /**
   * Closes politely: CONNECT_CLOSE (waiting at most `closeTimeoutMs`), then ends the stream.
   * Calls still pending reject with ConnectionClosedError. Never rejects.
   */
  close(): Promise<void> {
    if (!this.closePromise) this.closePromise = this.doClose();
    return this.closePromise;
  }

  private async doClose(): Promise<void> {
    if (this.conn.closed) return;
    this.conn.beginClose();
    const { reply } = this.conn.request(Program.REMOTE, spec('CONNECT_CLOSE').proc, 'CONNECT_CLOSE', () => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.closeTimeoutMs);
      timer.unref();
    });
    await Promise.race([
      reply.then(
        () => undefined,
        () => undefined,
      ),
      timeout,
    ]);
    clearTimeout(timer);
    await this.conn.endTransport(this.closeTimeoutMs);
    this.conn.shutdown(new ConnectionClosedError('the connection was closed by the client'), undefined);
  }

  /** Drops the connection at once (no CONNECT_CLOSE). Pending calls reject; `close` is emitted with `reason`. */
  destroy(reason?: Error): void {
    const error = new ConnectionClosedError(
      reason ? `connection dropped: ${reason.message}` : 'the connection was destroyed',
      { cause: reason },
    );
    if (reason) this.conn.fail(error, reason);
    else this.conn.shutdown(error, undefined);
  }
}
