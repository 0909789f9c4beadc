/**
 * Two connected in-memory Duplex ends with real backpressure: a write on one end completes
 * only when the other end's reader has room, like a socket whose peer reads slowly.
 */
import { Duplex } from 'node:stream';

class End extends Duplex {
  peer!: End;
  /** The callback of the peer's write that this end's reader had no room for yet. */
  blocked: ((err?: Error | null) => void) | null = null;
  /** Bytes this end has written that the peer's reader has not consumed. */
  get unreadByPeer(): number {
    return this.peer.readableLength;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    const peer = this.peer;
    // Delivered on a later tick, as a socket would: a write never runs the peer's
    // 'data' handlers synchronously inside the writer's call.
    process.nextTick(() => {
      if (peer.destroyed || peer.readableEnded) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
        return;
      }
      if (peer.push(chunk)) callback();
      else peer.blocked = callback;
    });
  }

  override _read(): void {
    const resume = this.blocked;
    this.blocked = null;
    resume?.();
  }

  override _final(callback: (err?: Error | null) => void): void {
    process.nextTick(() => {
      if (!this.peer.destroyed && !this.peer.readableEnded) this.peer.push(null);
      callback();
    });
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const peer = this.peer;
    const pending = this.blocked;
    this.blocked = null;
    // Like a socket: the other side sees end-of-file (then its own close).
    process.nextTick(() => {
      if (!peer.destroyed && !peer.readableEnded) peer.push(null);
      pending?.(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    });
    callback(err);
  }
}

export interface DuplexPair {
  /** The end the client uses. */
  client: Duplex & { readonly unreadByPeer: number };
  /** The end the fake daemon uses. */
  daemon: Duplex & { readonly unreadByPeer: number };
}

/** A connected pair. `highWaterMark` bounds what each reader buffers before writers block. */
export function duplexPair(highWaterMark = 64 * 1024): DuplexPair {
  const a = new End({ highWaterMark, allowHalfOpen: true });
  const b = new End({ highWaterMark, allowHalfOpen: true });
  a.peer = b;
  b.peer = a;
  return { client: a, daemon: b };
}
