/**
 * Volume streams against the real daemon (qemu:///system, the test pool): byte-exact
 * upload and download, ranges, backpressure, errors the daemon raises mid-transfer,
 * aborts and a connection lost mid-stream.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/client.js';
import { ConnectionClosedError, LibvirtError } from '../../electron/libvirt/errors.js';
import { MessageStatus, MessageType, STREAM_CHUNK_MAX } from '../../electron/libvirt/packet.js';
import type { StoragePoolRef, StorageVolRef } from '../../electron/libvirt/types.js';
import { testEnv } from '../support/env.js';
import { type Tap, bestEffort, connect, egtestName, until } from './client-support.js';
import { tempDir } from '../support/temp-dir.js';

const MiB = 1024 * 1024;
const taps: Tap[] = [];
let client: LibvirtClient;
let pool: StoragePoolRef;
let dir: string;
const created: StorageVolRef[] = [];

beforeAll(async () => {
  client = await connect('qemu:///system', {}, taps);
  pool = await client.call('STORAGE_POOL_LOOKUP_BY_NAME', { name: testEnv().EGRESS_TEST_POOL });
  dir = tempDir('egtest-rpc-');
});

afterEach(async () => {
  const c = client.closed ? await connect('qemu:///system') : client;
  for (const vol of created.splice(0)) await bestEffort(() => c.call('STORAGE_VOL_DELETE', { vol, flags: 0 }));
  if (c !== client) await c.close();
});

afterAll(async () => {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
});

async function createVolume(size: number): Promise<StorageVolRef> {
  const name = egtestName('stream');
  const xml = `<volume><name>${name}</name><capacity unit='bytes'>${size}</capacity><target><format type='raw'/></target></volume>`;
  const vol = await client.call('STORAGE_VOL_CREATE_XML', { pool, xml, flags: 0 });
  created.push(vol);
  return vol;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** An endless source of pseudo-random 64 KiB chunks, produced only when read. */
function endless(): Readable & { produced: number } {
  const source = Object.assign(
    new Readable({
      read() {
        source.produced += 65536;
        this.push(randomBytes(65536));
      },
    }),
    { produced: 0 },
  );
  return source;
}

describe('volume streams', () => {
  it('uploads a file and downloads it back byte for byte, with progress', async () => {
    const size = 6 * MiB + 12345;
    const data = randomBytes(size);
    const src = join(dir, 'up.bin');
    const dst = join(dir, 'down.bin');
    writeFileSync(src, data);
    const vol = await createVolume(size);
    const progress: number[] = [];
    expect(
      await client.uploadVolume(vol, createReadStream(src), { onProgress: (d) => progress.push(d), total: size }),
    ).toBe(size);
    expect(progress.at(-1)).toBe(size);
    expect(await client.downloadVolume(vol, createWriteStream(dst))).toBe(size);
    expect(sha(readFileSync(dst))).toBe(sha(data));
    // The daemon sends at most 262120 bytes per stream packet and ends with an empty CONTINUE.
    const serial = taps[0]!.headers.filter((h) => h.proc === 209 && h.type === MessageType.REPLY).at(-1)!.serial;
    const packets = taps[0]!.headers.filter(
      (h) => h.proc === 209 && h.type === MessageType.STREAM && h.serial === serial,
    );
    expect(packets.at(-1)!.status).toBe(MessageStatus.OK);
    expect(packets.filter((h) => h.status === MessageStatus.CONTINUE).length).toBeGreaterThanOrEqual(
      Math.ceil(size / STREAM_CHUNK_MAX),
    );
  });

  it('uploads and downloads a byte range (offset, length)', async () => {
    const vol = await createVolume(3 * MiB);
    const middle = randomBytes(MiB);
    await client.uploadVolume(vol, Readable.from([middle]), { offset: BigInt(MiB), length: BigInt(MiB) });
    const parts: Buffer[] = [];
    const n = await client.downloadVolume(vol, new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }), {
      offset: BigInt(MiB) - 10n,
      length: BigInt(MiB) + 20n,
    });
    expect(n).toBe(MiB + 20);
    const got = Buffer.concat(parts);
    expect(got.subarray(0, 10).equals(Buffer.alloc(10))).toBe(true);
    expect(got.subarray(10, 10 + MiB).equals(middle)).toBe(true);
    expect(got.subarray(10 + MiB).equals(Buffer.alloc(10))).toBe(true);
  });

  it('keeps the bytes queued on the socket bounded while uploading 64 MiB', async () => {
    const size = 64 * MiB;
    const vol = await createVolume(size);
    const socket = taps[0]!.socket;
    let maxQueued = 0;
    let produced = 0;
    const source = new Readable({
      read() {
        if (produced >= size) return void this.push(null);
        produced += MiB;
        this.push(Buffer.alloc(MiB, produced & 0xff));
      },
    });
    await client.uploadVolume(vol, source, {
      onProgress: () => (maxQueued = Math.max(maxQueued, socket.writableLength)),
    });
    expect(produced).toBe(size);
    // Never more than about a source chunk plus a stream packet waiting in memory.
    expect(maxQueued).toBeLessThan(4 * MiB);
  });

  it('rejects with the daemon’s error when the upload overruns the requested length', async () => {
    const vol = await createVolume(MiB);
    const err = await client
      .uploadVolume(vol, Readable.from([randomBytes(MiB)]), { length: 1000n })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ code: 38, domain: 38, message: 'cannot write to stream: No space left on device' });
    // It came as a STREAM/ERROR packet on the upload's serial, right after the call's reply.
    const serial = taps[0]!.headers.filter((h) => h.proc === 208 && h.type === MessageType.REPLY).at(-1)!.serial;
    expect(
      taps[0]!.headers.filter((h) => h.serial === serial && h.proc === 208).map((h) => [h.type, h.status]),
    ).toEqual([
      [MessageType.REPLY, MessageStatus.OK],
      [MessageType.STREAM, MessageStatus.ERROR],
    ]);
    expect(await client.call('CONNECT_GET_URI')).toBe('qemu:///system');
  });

  it('aborts an upload: the daemon confirms with STREAM/OK and the connection stays usable', async () => {
    const vol = await createVolume(256 * MiB);
    const controller = new AbortController();
    const source = endless();
    const upload = client.uploadVolume(vol, source, { signal: controller.signal });
    await until(() => source.produced > 4 * MiB);
    controller.abort();
    await expect(upload).rejects.toMatchObject({ name: 'AbortError' });
    const serial = taps[0]!.headers.filter((h) => h.proc === 208 && h.type === MessageType.REPLY).at(-1)!.serial;
    const after = taps[0]!.headers.filter((h) => h.proc === 208 && h.serial === serial && h.type !== MessageType.REPLY);
    expect(after.map((h) => [h.type, h.status])).toEqual([[MessageType.STREAM, MessageStatus.OK]]);
    expect(await client.call('CONNECT_GET_URI')).toBe('qemu:///system');
  });

  it('aborts a download from a slow sink and the connection stays usable', async () => {
    const vol = await createVolume(64 * MiB);
    const controller = new AbortController();
    let received = 0;
    const sink = new Writable({
      highWaterMark: 64 * 1024,
      write(c: Buffer, _e, cb) {
        received += c.length;
        setTimeout(cb, 5);
      },
    });
    const download = client.downloadVolume(vol, sink, { signal: controller.signal });
    await until(() => received > MiB);
    controller.abort();
    await expect(download).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toBeLessThan(32 * MiB);
    expect(await client.call('CONNECT_GET_URI')).toBe('qemu:///system');
  });

  it('fails an upload promptly with ConnectionClosedError when the connection dies mid-stream', async () => {
    const own: Tap[] = [];
    const other = await connect('qemu:///system', {}, own);
    const vol = await createVolume(256 * MiB);
    const source = endless();
    const upload = other.uploadVolume(vol, source);
    await until(() => source.produced > 2 * MiB);
    own[0]!.socket.destroy();
    await expect(upload).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});
