import { EventEmitter, once } from 'node:events';
import type { ClientChannel } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { ChannelStream } from '../../../electron/transport/ssh-channel.js';

/** Just enough of an ssh2 channel, quirks included: destroy() takes no error and emits nothing. */
class FakeChannel extends EventEmitter {
  written: Buffer[] = [];
  writeAccepts = true;
  paused = false;
  ended = false;
  destroyCalls = 0;
  stderr = { resume: (): void => undefined };
  write(chunk: Buffer): boolean {
    this.written.push(chunk);
    return this.writeAccepts;
  }
  end(cb?: () => void): void {
    this.ended = true;
    cb?.();
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  destroy(): void {
    this.destroyCalls++;
  }
  /** The server's EOF and CHANNEL_CLOSE, in ssh2's order. */
  remoteClose(): void {
    this.emit('end');
    this.emit('close');
  }
}

function wrap(): { fake: FakeChannel; stream: ChannelStream } {
  const fake = new FakeChannel();
  return { fake, stream: new ChannelStream(fake as unknown as ClientChannel) };
}

describe('ChannelStream', () => {
  it('passes buffers through both ways without copying', async () => {
    const { fake, stream } = wrap();
    const chunk = Buffer.from('call');
    await new Promise<void>((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve())));
    expect(fake.written[0]).toBe(chunk);
    const reply = Buffer.from('reply');
    const got = once(stream, 'data');
    fake.emit('data', reply);
    expect((await got)[0]).toBe(reply);
  });

  it('ends, finishes and closes when the server closes the channel', async () => {
    const { fake, stream } = wrap();
    stream.resume();
    const closed = once(stream, 'close');
    fake.remoteClose();
    await closed;
    expect(stream.readableEnded).toBe(true);
    expect(stream.writableFinished).toBe(true);
  });

  it('closes even when the consumer never reads (ssh2 would stay open while paused)', async () => {
    const { fake, stream } = wrap();
    fake.emit('data', Buffer.alloc(10));
    const closed = once(stream, 'close');
    stream.destroy();
    await closed;
    expect(fake.destroyCalls).toBe(1);
    expect(fake.paused).toBe(false); // resumed, so that ssh2 can finish its own close
  });

  it('reports the error it is destroyed with, and frees the channel', async () => {
    const { fake, stream } = wrap();
    const boom = new Error('connection lost');
    const errored = once(stream, 'error');
    stream.destroy(boom);
    expect((await errored)[0]).toBe(boom);
    expect(fake.destroyCalls).toBe(1);
  });

  it('fails a write waiting for window space when the channel closes, instead of hanging', async () => {
    const { fake, stream } = wrap();
    fake.writeAccepts = false;
    const written = new Promise<Error | null | undefined>((resolve) => stream.write(Buffer.alloc(1), resolve));
    stream.on('error', () => undefined);
    fake.emit('close');
    expect(await written).toBeInstanceOf(Error);
  });

  it('continues a write once ssh2 drains', async () => {
    const { fake, stream } = wrap();
    fake.writeAccepts = false;
    const written = new Promise<Error | null | undefined>((resolve) => stream.write(Buffer.alloc(1), resolve));
    fake.emit('drain');
    expect(await written).toBeFalsy();
  });

  it('fails writes after the channel closed', async () => {
    const { fake, stream } = wrap();
    fake.emit('close');
    const err = await new Promise<Error | null | undefined>((resolve) => {
      stream.on('error', () => undefined);
      stream.write(Buffer.alloc(1), resolve);
    });
    expect(err).toBeInstanceOf(Error);
  });

  it('pauses the channel when the consumer falls behind and resumes it on read', () => {
    const { fake, stream } = wrap();
    fake.emit('data', Buffer.alloc(2 * 1024 * 1024));
    expect(fake.paused).toBe(true);
    stream.read();
    expect(fake.paused).toBe(false);
  });

  it('sends EOF on end()', async () => {
    const { fake, stream } = wrap();
    stream.end();
    await once(stream, 'finish');
    expect(fake.ended).toBe(true);
  });
});
