/**
 * The daemon's ceiling: the least a client can do per call. Pre-encoded packets are
 * written with a fixed window in flight and replies are only counted (length words), so
 * what is measured is libvirtd, not a client. Our client is compared with this, in the
 * same run, because libvirtd itself caps pipelined throughput on a small machine.
 */
import { type Socket, createConnection } from 'node:net';

const REMOTE = 0x20008086;
const CALL = 0;

function packet(proc: number, serial: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(28 + payload.length);
  b.writeUInt32BE(b.length, 0);
  b.writeUInt32BE(REMOTE, 4);
  b.writeUInt32BE(1, 8);
  b.writeInt32BE(proc, 12);
  b.writeInt32BE(CALL, 16);
  b.writeUInt32BE(serial, 20);
  b.writeInt32BE(0, 24);
  payload.copy(b, 28);
  return b;
}

function openArgs(uri: string): Buffer {
  const name = Buffer.from(uri);
  const pad = (4 - (name.length % 4)) % 4;
  const b = Buffer.alloc(4 + 4 + name.length + pad + 4);
  b.writeUInt32BE(1, 0); // present
  b.writeUInt32BE(name.length, 4);
  name.copy(b, 8);
  return b; // flags 0 at the end (zeroed)
}

/** Reads whole packets off a socket and reports each reply's status to `onReply`. */
function replies(socket: Socket, onReply: (status: number) => void): void {
  let buf: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    let off = 0;
    while (buf.length - off >= 28) {
      const len = buf.readUInt32BE(off);
      if (buf.length - off < len) break;
      onReply(buf.readInt32BE(off + 24));
      off += len;
    }
    buf = buf.subarray(off);
  });
}

/** Calls per second of `count` CONNECT_GET_LIB_VERSION with `window` in flight. */
export async function minimalClientRate(socketPath: string, count: number, window: number): Promise<number> {
  const socket = createConnection(socketPath);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let pending: ((status: number) => void) | undefined;
  replies(socket, (status) => pending?.(status));
  const once = (p: Buffer) =>
    new Promise<number>((resolve) => {
      pending = resolve;
      socket.write(p);
    });
  // The handshake, one call at a time (libvirtd refuses calls pipelined across it).
  await once(packet(66, 1));
  if ((await once(packet(1, 2, openArgs('qemu:///system')))) !== 0) throw new Error('CONNECT_OPEN failed');
  let serial = 3;
  let done = 0;
  let sent = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    pending = () => {
      done++;
      if (sent < count) {
        socket.write(packet(157, serial++));
        sent++;
      }
      if (done === count) resolve();
    };
    const first = Buffer.concat(Array.from({ length: Math.min(window, count) }, () => packet(157, serial++)));
    sent = Math.min(window, count);
    socket.write(first);
  });
  const rate = count / ((performance.now() - start) / 1000);
  socket.destroy();
  return rate;
}
