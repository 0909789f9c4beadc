/**
 * An ssh2 channel as a standard Node Duplex.
 *
 * ssh2's channel is not one: its `destroy()` ignores the error argument and never sets
 * `destroyed`, it emits `close` only after its readable side has been consumed (a paused
 * channel never closes), and a write on a channel that is no longer open never calls back.
 * The RPC client above expects net.Socket semantics: `destroy(err)` tears down and reports,
 * `close` always comes, writes fail once the peer is gone. This wrapper gives exactly that,
 * passing Buffers through without copying.
 */
import { Duplex } from 'node:stream';
import type { ClientChannel } from 'ssh2';

const READ_HIGH_WATER = 1024 * 1024; // ~ssh2's channel window: fewer pause/resume round trips
const WRITE_HIGH_WATER = 256 * 1024;

/** A Duplex over one ssh2 channel. */
export class ChannelStream extends Duplex {
  private channelClosed = false;
  private pendingWrite: ((err?: Error | null) => void) | undefined;

  constructor(private readonly channel: ClientChannel) {
    // allowHalfOpen false: when the daemon closes its side, ours ends too, as a socket's would.
    super({ allowHalfOpen: false, readableHighWaterMark: READ_HIGH_WATER, writableHighWaterMark: WRITE_HIGH_WATER });
    channel.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) channel.pause();
    });
    channel.on('end', () => this.push(null));
    channel.on('drain', () => this.flushPending());
    channel.on('error', (err: Error) => this.destroy(err));
    channel.on('close', () => {
      this.channelClosed = true;
      this.flushPending(new Error('the SSH channel closed'));
      if (!this.readableEnded) this.push(null);
    });
    // A streamlocal channel carries no stderr, but an unread stderr would hold the channel open.
    channel.stderr.resume();
  }

  override _read(): void {
    this.channel.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    if (this.channelClosed) {
      callback(new Error('the SSH channel is closed'));
      return;
    }
    if (this.channel.write(chunk)) callback();
    else this.pendingWrite = callback;
  }

  override _final(callback: (err?: Error | null) => void): void {
    if (this.channelClosed) {
      callback();
      return;
    }
    // Sends EOF; errors here (already finished) change nothing for our side.
    this.channel.end(() => callback());
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.flushPending(err ?? new Error('the stream was destroyed'));
    if (!this.channelClosed) {
      // ssh2's own destroy: EOF + CHANNEL_CLOSE. Resuming lets ssh2 drain what is left and finish its close.
      this.channel.destroy();
      this.channel.resume();
    }
    callback(err);
  }

  private flushPending(err?: Error): void {
    const cb = this.pendingWrite;
    this.pendingWrite = undefined;
    cb?.(err);
  }
}
