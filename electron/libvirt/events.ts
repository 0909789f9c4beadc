/**
 * Domain events through the callback event API: CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY
 * (316) once per connection and event kind for all domains, filtering per subscriber here;
 * DEREGISTER_ANY (317) when the kind's last subscriber leaves. Two kinds are used:
 * lifecycle (defined, started, stopped, undefined…; MESSAGE packets of procedure 318) and
 * metadata changes (DOMAIN_SET_METADATA by anyone, live or to the definition; procedure
 * 379, seen on libvirt 9.0's qemu and test drivers by test/libvirt/events.test.ts).
 */
import type { RpcConnection } from './connection.js';
import { decodeAll } from './codec.js';
import { DomainEventId, Feature } from './constants.js';
import { ConnectionClosedError, LibvirtError, ErrorCode } from './errors.js';
import { Program } from './packet.js';
import { type CallArgs, type CallName, type ReplyOf, procedures } from './procedures.js';
import type { DomainRef } from './types.js';

/** `virDomainEventType`. */
export const LifecycleEventType = {
  DEFINED: 0,
  UNDEFINED: 1,
  STARTED: 2,
  SUSPENDED: 3,
  RESUMED: 4,
  STOPPED: 5,
  SHUTDOWN: 6,
  PMSUSPENDED: 7,
  CRASHED: 8,
} as const;
export type LifecycleEventName = keyof typeof LifecycleEventType;

const EVENT_NAMES = Object.keys(LifecycleEventType) as LifecycleEventName[];

// Detail names per event type (virDomainEvent*DetailType), index = value.
const DETAIL_NAMES: Record<LifecycleEventName, readonly string[]> = {
  DEFINED: ['ADDED', 'UPDATED', 'RENAMED', 'FROM_SNAPSHOT'],
  UNDEFINED: ['REMOVED', 'RENAMED'],
  STARTED: ['BOOTED', 'MIGRATED', 'RESTORED', 'FROM_SNAPSHOT', 'WAKEUP', 'RECREATED'],
  SUSPENDED: [
    'PAUSED',
    'MIGRATED',
    'IOERROR',
    'WATCHDOG',
    'RESTORED',
    'FROM_SNAPSHOT',
    'API_ERROR',
    'POSTCOPY',
    'POSTCOPY_FAILED',
  ],
  RESUMED: ['UNPAUSED', 'MIGRATED', 'FROM_SNAPSHOT', 'POSTCOPY', 'POSTCOPY_FAILED'],
  STOPPED: ['SHUTDOWN', 'DESTROYED', 'CRASHED', 'MIGRATED', 'SAVED', 'FAILED', 'FROM_SNAPSHOT'],
  SHUTDOWN: ['FINISHED', 'GUEST', 'HOST'],
  PMSUSPENDED: ['MEMORY', 'DISK'],
  CRASHED: ['PANICKED', 'CRASHLOADED'],
};

/** One lifecycle event. */
export interface LifecycleEvent {
  dom: DomainRef;
  /** `virDomainEventType` value. */
  event: number;
  /** Its name, or `UNKNOWN` for a value newer than this table. */
  eventName: LifecycleEventName | 'UNKNOWN';
  /** The detail value (meaning depends on the event). */
  detail: number;
  /** The detail's name when known, e.g. `DESTROYED` for STOPPED/1. */
  detailName: string | undefined;
}

export type LifecycleListener = (event: LifecycleEvent) => void;

export interface SubscribeOptions {
  /** Only events about this domain (matched by UUID). */
  dom?: DomainRef;
}

/** A metadata change (`virDomainMetadataType`: 0 description, 1 title, 2 element). */
export interface MetadataChangeEvent {
  dom: DomainRef;
  type: number;
  /** The element's namespace URI (type 2), else null. */
  nsuri: string | null;
}

export type MetadataChangeListener = (event: MetadataChangeEvent) => void;

/** One kind of domain event: what to register, which MESSAGE procedure carries it, how to read one. */
export interface DomainEventKind<E extends { dom: DomainRef }> {
  eventID: number;
  proc: number;
  decode(payload: Buffer): { callbackID: number; event: E };
}

/** What DomainEvents needs from the client. */
export interface EventHost {
  call<K extends CallName>(name: K, ...args: CallArgs<K>): Promise<ReplyOf<K>>;
  supportsFeature(feature: number): Promise<boolean>;
}

interface Subscriber<E> {
  listener: (event: E) => void;
  uuid: string | null;
}

/** Decodes a lifecycle MESSAGE payload (procedure 318). */
export function decodeLifecycle(payload: Buffer): { callbackID: number; event: LifecycleEvent } {
  const msg = decodeAll(procedures.DOMAIN_EVENT_CALLBACK_LIFECYCLE.args, payload);
  const known = EVENT_NAMES[msg.event] as LifecycleEventName | undefined;
  const detailName = known ? DETAIL_NAMES[known][msg.detail] : undefined;
  return {
    callbackID: msg.callbackID,
    event: { dom: msg.dom, event: msg.event, eventName: known ?? 'UNKNOWN', detail: msg.detail, detailName },
  };
}

/** Decodes a metadata-change MESSAGE payload (procedure 379). */
export function decodeMetadataChange(payload: Buffer): { callbackID: number; event: MetadataChangeEvent } {
  const msg = decodeAll(procedures.DOMAIN_EVENT_CALLBACK_METADATA_CHANGE.args, payload);
  return { callbackID: msg.callbackID, event: { dom: msg.dom, type: msg.type, nsuri: msg.nsuri } };
}

export const LIFECYCLE_EVENTS: DomainEventKind<LifecycleEvent> = {
  eventID: DomainEventId.LIFECYCLE,
  proc: procedures.DOMAIN_EVENT_CALLBACK_LIFECYCLE.proc,
  decode: decodeLifecycle,
};

export const METADATA_CHANGE_EVENTS: DomainEventKind<MetadataChangeEvent> = {
  eventID: DomainEventId.METADATA_CHANGE,
  proc: procedures.DOMAIN_EVENT_CALLBACK_METADATA_CHANGE.proc,
  decode: decodeMetadataChange,
};

/** One client's subscriptions to one kind of domain event. */
export class DomainEvents<E extends { dom: DomainRef }> {
  private readonly subscribers = new Set<Subscriber<E>>();
  private callbackId: number | null = null;
  /** Register/deregister run one at a time, in order, so they never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly closeWatchers = new Set<(err: Error) => void>();

  constructor(
    private readonly host: EventHost,
    conn: RpcConnection,
    private readonly kind: DomainEventKind<E>,
  ) {
    conn.onMessage(Program.REMOTE, kind.proc, (_h, payload) => this.deliver(payload));
    conn.on('close', (reason) => {
      this.callbackId = null;
      const err = conn.closedError ?? new ConnectionClosedError('the connection was closed', { cause: reason });
      for (const watch of [...this.closeWatchers]) watch(err);
    });
  }

  private deliver(payload: Buffer): void {
    if (this.subscribers.size === 0) return;
    const { callbackID, event } = this.kind.decode(payload);
    // Before REGISTER_ANY's reply arrives the id is unknown; this client registers each kind
    // once (and each kind has its own procedure), so an event then can only be ours.
    if (this.callbackId !== null && callbackID !== this.callbackId) return;
    const uuid = event.dom.uuid.toString('hex');
    for (const sub of [...this.subscribers]) {
      if (sub.uuid !== null && sub.uuid !== uuid) continue;
      try {
        sub.listener(event);
      } catch {
        // One listener's failure must not keep the event from the others.
      }
    }
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async ensureRegistered(): Promise<void> {
    if (this.callbackId !== null) return;
    if (!(await this.host.supportsFeature(Feature.REMOTE_EVENT_CALLBACK))) {
      throw LibvirtError.local(
        ErrorCode.NO_SUPPORT,
        'this libvirtd does not support callback-based events (feature REMOTE_EVENT_CALLBACK)',
      );
    }
    this.callbackId = await this.host.call('CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY', {
      eventID: this.kind.eventID,
      dom: null,
    });
  }

  private async deregisterIfIdle(): Promise<void> {
    if (this.subscribers.size > 0 || this.callbackId === null) return;
    const id = this.callbackId;
    this.callbackId = null;
    try {
      await this.host.call('CONNECT_DOMAIN_EVENT_CALLBACK_DEREGISTER_ANY', { callbackID: id });
    } catch (err) {
      // After the connection is gone there is nothing left to deregister.
      if (!(err instanceof ConnectionClosedError)) throw err;
    }
  }

  /** Adds a subscriber; resolves to its unsubscribe function once the daemon is registered. */
  async subscribe(listener: (event: E) => void, options: SubscribeOptions = {}): Promise<() => Promise<void>> {
    const sub: Subscriber<E> = { listener, uuid: options.dom ? options.dom.uuid.toString('hex') : null };
    this.subscribers.add(sub);
    try {
      await this.serialize(() => this.ensureRegistered());
    } catch (err) {
      this.subscribers.delete(sub);
      throw err;
    }
    let left = false;
    return async () => {
      if (left) return;
      left = true;
      this.subscribers.delete(sub);
      await this.serialize(() => this.deregisterIfIdle());
    };
  }

  /** Events as an async iterator. It ends on `signal`, on `return()` (a `break`), or with an error when the connection closes. */
  iterate(options: SubscribeOptions & { signal?: AbortSignal } = {}): AsyncIterableIterator<E> {
    const buffered: E[] = [];
    let wake: (() => void) | null = null;
    let finished = false;
    let failure: Error | null = null;
    const notify = (): void => {
      wake?.();
      wake = null;
    };
    const onClose = (err: Error): void => {
      failure = err;
      notify();
    };
    this.closeWatchers.add(onClose);
    const subscribed = this.subscribe((event) => {
      buffered.push(event);
      notify();
    }, options);
    subscribed.catch(() => undefined);
    const stop = async (): Promise<void> => {
      if (finished) return;
      finished = true;
      this.closeWatchers.delete(onClose);
      options.signal?.removeEventListener('abort', onAbort);
      notify();
      const unsubscribe = await subscribed.catch(() => null);
      await unsubscribe?.().catch(() => undefined);
    };
    const onAbort = (): void => void stop();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const iterator: AsyncIterableIterator<E> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        await subscribed;
        for (;;) {
          const event = buffered.shift();
          if (event) return { value: event, done: false };
          if (finished) return { value: undefined, done: true };
          if (failure) {
            await stop();
            throw failure;
          }
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
      return: async () => {
        await stop();
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }
}
