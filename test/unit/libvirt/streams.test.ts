import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConnectionClosedError, ErrorCode, LibvirtError, ProtocolError } from '../../../electron/libvirt/errors.js';
import {
  MessageStatus,
  MessageType,
  STREAM_CHUNK_MAX,
  encodePacket,
  type Packet,
} from '../../../electron/libvirt/packet.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import { XdrReader } from '../../../electron/libvirt/xdr.js';
import { type FakeDaemon, clientAndDaemon, errorPayload, sleep } from './support/fake-daemon.js';

const vol = { pool: 'default', name: 'egtest-vol', key: '/pool/egtest-vol' };
const dom = { name: 'vm1', uuid: Buffer.alloc(16, 2), id: 3 };
const isStream = (p: Packet) => p.header.type === MessageType.STREAM;

/** A source that makes `total` bytes on demand and counts what it has produced. */
function countingSource(total: number, chunk = 64 * 1024): Readable & { produced: number } {
  let produced = 0;
  const source = new Readable({
    read() {
      if (produced >= total) return void this.push(null);
      const n = Math.min(chunk, total - produced);
      const buf = Buffer.alloc(n);
      for (let i = 0; i < n; i++) buf[i] = (produced + i) & 0xff;
      produced += n;
      this.push(buf);
    },
  });
  return Object.defineProperty(source, 'produced', { get: () => produced }) as Readable & { produced: number };
}

/** Makes the daemon read its socket slowly: `bytes` every `ms`. */
function throttle(daemon: FakeDaemon, bytes: number, ms: number): () => void {
  daemon.end.pause();
  const timer = setInterval(() => {
    const n = Math.min(bytes, daemon.end.readableLength);
    if (n > 0) daemon.end.read(n);
  }, ms);
  return () => {
    clearInterval(timer);
    daemon.end.resume();
  };
}

async function acceptUpload(daemon: FakeDaemon): Promise<Packet> {
  const call = await daemon.nextCall('STORAGE_VOL_UPLOAD');
  daemon.reply(call);
  return call;
}

describe('uploadVolume', () => {
  it('streams with backpressure from a slow daemon, in chunks ≤ 262120, keeping bytes in flight bounded', async () => {
    const { client, daemon } = clientAndDaemon({ highWaterMark: 64 * 1024 });
    const total = 8 * 1024 * 1024;
    const source = countingSource(total);
    let received = 0;
    let maxInFlight = 0;
    let maxChunk = 0;
    const progress: number[] = [];
    const upload = client.uploadVolume(vol, source, { onProgress: (done) => progress.push(done) });
    const call = await acceptUpload(daemon);
    const stopThrottle = throttle(daemon, 256 * 1024, 2);
    let finish: Packet | undefined;
    while (!finish) {
      const p = await daemon.next(isStream);
      if (p.header.status === MessageStatus.OK) finish = p;
      else {
        expect(p.header).toMatchObject({ proc: 208, serial: call.header.serial, status: MessageStatus.CONTINUE });
        received += p.payload.length;
        maxChunk = Math.max(maxChunk, p.payload.length);
        maxInFlight = Math.max(maxInFlight, source.produced - received);
      }
    }
    stopThrottle();
    expect(received).toBe(total);
    expect(finish.payload).toHaveLength(0);
    expect(maxChunk).toBeLessThanOrEqual(STREAM_CHUNK_MAX);
    // The whole file never sits in memory: at most a few chunks are between source and daemon.
    expect(maxInFlight).toBeLessThan(2 * 1024 * 1024);
    // Not done until the daemon confirms the finish.
    let settled = false;
    void upload.finally(() => (settled = true));
    await sleep(20);
    expect(settled).toBe(false);
    daemon.stream(call, MessageStatus.OK);
    await expect(upload).resolves.toBe(total);
    expect(progress.at(-1)).toBe(total);
    client.destroy();
  });

  it('rejects with the LibvirtError the daemon sends mid-transfer', async () => {
    const { client, daemon } = clientAndDaemon();
    const source = countingSource(64 * 1024 * 1024);
    const upload = client.uploadVolume(vol, source);
    const call = await acceptUpload(daemon);
    await daemon.next(isStream);
    daemon.send(
      { proc: 208, serial: call.header.serial, type: MessageType.STREAM, status: MessageStatus.ERROR },
      errorPayload(ErrorCode.SYSTEM_ERROR, 'No space left on device'),
    );
    const err = await upload.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).message).toBe('No space left on device');
    expect(source.destroyed).toBe(true);
    expect(source.produced).toBeLessThan(8 * 1024 * 1024);
    client.destroy();
  });

  it('aborts on the signal: sends an empty STREAM/ERROR and waits for the daemon to confirm', async () => {
    const { client, daemon } = clientAndDaemon();
    const controller = new AbortController();
    const upload = client.uploadVolume(vol, countingSource(64 * 1024 * 1024), { signal: controller.signal });
    const call = await acceptUpload(daemon);
    await daemon.next(isStream);
    controller.abort();
    let abort: Packet | undefined;
    while (!abort) {
      const p = await daemon.next(isStream);
      if (p.header.status === MessageStatus.ERROR) abort = p;
    }
    expect(abort.payload).toHaveLength(0);
    let settled = false;
    void upload.catch(() => undefined).finally(() => (settled = true));
    await sleep(20);
    expect(settled).toBe(false);
    daemon.stream(call, MessageStatus.OK);
    await expect(upload).rejects.toMatchObject({ name: 'AbortError' });
    client.destroy();
  });

  it('rejects without streaming when the upload call itself fails', async () => {
    const { client, daemon } = clientAndDaemon();
    const source = countingSource(1024);
    const upload = client.uploadVolume(vol, source);
    daemon.replyError(
      await daemon.nextCall('STORAGE_VOL_UPLOAD'),
      ErrorCode.NO_STORAGE_VOL,
      'Storage volume not found',
    );
    await expect(upload).rejects.toMatchObject({ code: ErrorCode.NO_STORAGE_VOL });
    await sleep(10);
    expect(daemon.received.filter(isStream)).toHaveLength(0);
    client.destroy();
  });

  it('rejects with ConnectionClosedError when the connection drops mid-stream', async () => {
    const { client, daemon } = clientAndDaemon();
    const upload = client.uploadVolume(vol, countingSource(64 * 1024 * 1024));
    await acceptUpload(daemon);
    await daemon.next(isStream);
    daemon.end.destroy();
    await expect(upload).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

/** Sends `total` bytes of stream data as the daemon, honouring its own socket's backpressure. */
async function pushDownload(daemon: FakeDaemon, call: Packet, total: number, chunk = STREAM_CHUNK_MAX): Promise<void> {
  for (let sent = 0; sent < total; sent += chunk) {
    const n = Math.min(chunk, total - sent);
    const data = Buffer.alloc(n, (sent / chunk) & 0xff);
    const packet = encodePacket(
      {
        prog: call.header.prog,
        vers: 1,
        proc: 209,
        type: MessageType.STREAM,
        serial: call.header.serial,
        status: MessageStatus.CONTINUE,
      },
      data,
    );
    if (!daemon.end.write(packet)) await once(daemon.end, 'drain');
  }
  daemon.stream(call, MessageStatus.CONTINUE); // EOF
}

describe('downloadVolume', () => {
  it('writes the chunks to the sink, and after EOF sends STREAM/OK and waits for the daemon’s STREAM/OK', async () => {
    const { client, daemon } = clientAndDaemon();
    const parts: Buffer[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) });
    const progress: Array<[number, number | undefined]> = [];
    const download = client.downloadVolume(vol, sink, { length: 1000n, onProgress: (d, t) => progress.push([d, t]) });
    const call = await daemon.nextCall('STORAGE_VOL_DOWNLOAD');
    expect(procedures.STORAGE_VOL_DOWNLOAD.args.decode(new XdrReader(call.payload))).toEqual({
      vol,
      offset: 0n,
      length: 1000n,
      flags: 0,
    });
    daemon.reply(call);
    daemon.stream(call, MessageStatus.CONTINUE, Buffer.alloc(600, 1));
    daemon.stream(call, MessageStatus.CONTINUE, Buffer.alloc(400, 2));
    daemon.stream(call, MessageStatus.CONTINUE);
    const finish = await daemon.next(isStream);
    expect(finish.header).toMatchObject({ status: MessageStatus.OK, serial: call.header.serial, proc: 209 });
    let settled = false;
    void download.finally(() => (settled = true));
    await sleep(20);
    expect(settled).toBe(false);
    daemon.stream(call, MessageStatus.OK);
    await expect(download).resolves.toBe(1000);
    expect(Buffer.concat(parts).equals(Buffer.concat([Buffer.alloc(600, 1), Buffer.alloc(400, 2)]))).toBe(true);
    expect(progress).toEqual([
      [600, 1000],
      [1000, 1000],
    ]);
    client.destroy();
  });

  it('stops reading the connection while a slow sink is full, so memory stays bounded', async () => {
    const { client, daemon } = clientAndDaemon({ highWaterMark: 64 * 1024 });
    const total = 8 * 1024 * 1024;
    let consumed = 0;
    let sent = 0;
    let maxBuffered = 0;
    const sink = new Writable({
      highWaterMark: 64 * 1024,
      write(c: Buffer, _e, cb) {
        setTimeout(() => {
          consumed += c.length;
          cb();
        }, 1);
      },
    });
    const download = client.downloadVolume(vol, sink);
    const call = await daemon.nextCall('STORAGE_VOL_DOWNLOAD');
    daemon.reply(call);
    const sampler = setInterval(() => (maxBuffered = Math.max(maxBuffered, sent - consumed)), 1);
    const origWrite = daemon.end.write.bind(daemon.end);
    daemon.end.write = ((chunk: Buffer, ...rest: never[]) => {
      sent += Math.max(0, chunk.length - 28);
      return origWrite(chunk, ...rest);
    }) as typeof daemon.end.write;
    await pushDownload(daemon, call, total);
    await daemon.next((p) => isStream(p) && p.header.status === MessageStatus.OK);
    daemon.stream(call, MessageStatus.OK);
    await expect(download).resolves.toBe(total);
    clearInterval(sampler);
    expect(consumed).toBe(total);
    expect(maxBuffered).toBeLessThan(2 * 1024 * 1024);
    client.destroy();
  });

  it('rejects with the daemon’s STREAM/ERROR', async () => {
    const { client, daemon } = clientAndDaemon();
    const download = client.downloadVolume(vol, new Writable({ write: (_c, _e, cb) => cb() }));
    const call = await daemon.nextCall('STORAGE_VOL_DOWNLOAD');
    daemon.reply(call);
    daemon.stream(call, MessageStatus.CONTINUE, Buffer.alloc(10));
    daemon.send(
      { proc: 209, serial: call.header.serial, type: MessageType.STREAM, status: MessageStatus.ERROR },
      errorPayload(ErrorCode.SYSTEM_ERROR, 'read failed'),
    );
    await expect(download).rejects.toMatchObject({ name: 'LibvirtError', message: 'read failed' });
    client.destroy();
  });

  it('aborts on the signal with an empty STREAM/ERROR and the daemon’s confirmation', async () => {
    const { client, daemon } = clientAndDaemon();
    const controller = new AbortController();
    const download = client.downloadVolume(vol, new Writable({ write: (_c, _e, cb) => cb() }), {
      signal: controller.signal,
    });
    const call = await daemon.nextCall('STORAGE_VOL_DOWNLOAD');
    daemon.reply(call);
    daemon.stream(call, MessageStatus.CONTINUE, Buffer.alloc(10));
    await sleep(5);
    controller.abort();
    const abort = await daemon.next(isStream);
    expect(abort.header.status).toBe(MessageStatus.ERROR);
    expect(abort.payload).toHaveLength(0);
    daemon.stream(call, MessageStatus.OK);
    await expect(download).rejects.toMatchObject({ name: 'AbortError' });
    // Late data for the aborted stream is dropped quietly, not a protocol error.
    daemon.stream(call, MessageStatus.CONTINUE, Buffer.alloc(10));
    await sleep(10);
    expect(client.closed).toBe(false);
    client.destroy();
  });

  it('rejects with ConnectionClosedError when the connection drops mid-stream', async () => {
    const { client, daemon } = clientAndDaemon();
    const download = client.downloadVolume(vol, new Writable({ write: (_c, _e, cb) => cb() }));
    const call = await daemon.nextCall('STORAGE_VOL_DOWNLOAD');
    daemon.reply(call);
    daemon.stream(call, MessageStatus.CONTINUE, Buffer.alloc(10));
    await sleep(5);
    daemon.end.destroy();
    await expect(download).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe('streams against replies gone astray (found by fuzzing)', () => {
  // test/unit/fuzz/rpc-frames.test.ts: another call's answer sent with a download's serial
  // opened it, and a second one "confirmed" it: the download resolved, after no data, as
  // if the volume had been read whole.
  it('a second REPLY on the serial of a download fails the connection instead of ending the download as a success', async () => {
    const { client, daemon } = clientAndDaemon();
    const sink = new Writable({ write: (_c: Buffer, _e, cb) => cb() });
    const download = client.downloadVolume(vol, sink);
    const call = await daemon.nextCall('STORAGE_VOL_DOWNLOAD');
    daemon.reply(call);
    daemon.stream(call, MessageStatus.CONTINUE, Buffer.alloc(10, 1));
    daemon.reply(call);
    const err = await download.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect((err as Error).message).toMatch(
      /reply for serial \d+, whose call was already answered and which now carries a stream/,
    );
    expect(client.closed).toBe(true);
  });

  it('a reply with a payload does not open a stream (the opening calls answer with nothing)', async () => {
    const { client, daemon } = clientAndDaemon();
    const sink = new Writable({ write: (_c: Buffer, _e, cb) => cb() });
    const download = client.downloadVolume(vol, sink);
    const call = await daemon.nextCall('STORAGE_VOL_DOWNLOAD');
    daemon.replyWith(call, procedures.CONNECT_GET_URI.reply, 'qemu:///system');
    const err = await download.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as Error).message).toMatch(
      /STORAGE_VOL_DOWNLOAD: the reply that opens the stream carries \d+ bytes; it should be empty/,
    );
    // The daemon is told to drop whatever it opened.
    const abort = await daemon.next(isStream);
    expect(abort.header).toMatchObject({ serial: call.header.serial, status: MessageStatus.ERROR });
    // Late packets for it are dropped; the connection still serves calls.
    daemon.stream(call, MessageStatus.OK);
    daemon.handle('CONNECT_GET_URI', (c, d) => d.replyWith(c, procedures.CONNECT_GET_URI.reply, 'test:///default'));
    await expect(client.call('CONNECT_GET_URI')).resolves.toBe('test:///default');
    client.destroy();
  });
});

describe('openConsole', () => {
  it('carries bytes both ways and finishes with STREAM/OK after the daemon’s EOF', async () => {
    const { client, daemon } = clientAndDaemon();
    const opening = client.openConsole(dom, null);
    const call = await daemon.nextCall('DOMAIN_OPEN_CONSOLE');
    expect(procedures.DOMAIN_OPEN_CONSOLE.args.decode(new XdrReader(call.payload))).toEqual({
      dom,
      devName: null,
      flags: 2,
    });
    daemon.reply(call);
    const console = await opening;
    console.write('root\n');
    const typed = await daemon.next(isStream);
    expect(typed.payload.toString()).toBe('root\n');
    expect(typed.header).toMatchObject({ proc: 201, status: MessageStatus.CONTINUE });
    daemon.stream(call, MessageStatus.CONTINUE, Buffer.from('login: '));
    const [output] = (await once(console, 'data')) as [Buffer];
    expect(output.toString()).toBe('login: ');
    daemon.stream(call, MessageStatus.CONTINUE);
    const finish = await daemon.next(isStream);
    expect(finish.header.status).toBe(MessageStatus.OK);
    daemon.stream(call, MessageStatus.OK);
    console.resume();
    await once(console, 'close');
    expect(client.closed).toBe(false);
    client.destroy();
  });
});
