/**
 * The gateway's TCP connection to a member (issue 40), reading into buffers it chooses
 * (net's `onread`) instead of a new one for every read, so that a tunnel's downloads are
 * written from the socket's own buffer straight into the client's socket.
 *
 * Why: a socket's ordinary reads allocate a fresh 64 KiB buffer each, garbage as soon as
 * it is written on; in a process with a real heap (the app's backend, where the gateway
 * runs), that external memory keeps V8 collecting, full collections included. On loopback
 * (bench (n), docs/performance.md, 2026-12-08) a 256 MiB download through a tunnel cost the
 * gateway's process 290-460 ms of CPU piped, 100-180 ms written from its own buffer.
 *
 * Three kinds of read, so that short requests cost no more than before either:
 *  - small ones (a CONNECT answer, a short response) land in one buffer that every member
 *    socket shares and are copied out at once (Buffer's pool);
 *  - once reads are large (a bulk transfer), into the socket's own 64 KiB buffer: before
 *    a relay, pushed as they are (the next read gets a new buffer, as an ordinary socket's
 *    does: a plain request's response, the SOCKS5 exchange read it as usual);
 *  - once a relay took the socket ({@link sinkInto}), written from that buffer, which is
 *    read into again only when the client's socket has taken the write.
 */
import { type Socket, connect } from 'node:net';
import type { Duplex } from 'node:stream';

/** Bytes read at most at a time: what libuv reads into an ordinary socket's buffer. */
const READ_BUFFER_BYTES = 64 * 1024;

/** A read smaller than this is copied out (into Buffer's pool: cheap) rather than handed on in a 64 KiB buffer. */
const SMALL_READ_BYTES = 4 * 1024;

/**
 * The buffer every member socket reads small reads into (each is copied out in its callback,
 * before any other read can land): a short request then allocates no 64 KiB of its own. With
 * one per connection, 1,000 CONNECT requests made the gateway's process collect its whole
 * heap 13 times, against 5 young-generation collections and none of it this way.
 */
const shared = Buffer.allocUnsafe(READ_BUFFER_BYTES);

/** Where reads go once a relay took the socket: false stops reading until the consumer resumes it. */
type Sink = (chunk: Buffer) => boolean;

const kReads = Symbol('member socket reads');

interface Reads {
  sink: Sink | undefined;
}

/** Connects to `host:port`, reading as the file's comment says. */
export function connectMember(host: string, port: number): Socket {
  const reads: Reads = { sink: undefined };
  // The buffer the next read lands in; whether the last read was handed on in it (its reader
  // keeps it: the next read needs another); whether reads have been large, which is when a
  // buffer of the socket's own pays (a bulk transfer), rather than the shared one and copies.
  let current = shared;
  let handedOut = false;
  let large = false;
  const socket = connect({
    host,
    port,
    onread: {
      // Asked for once at the start and after every read's callback.
      buffer: () => {
        if (large && (current === shared || handedOut)) current = Buffer.allocUnsafe(READ_BUFFER_BYTES);
        handedOut = false;
        return current;
      },
      callback: (n: number): boolean => {
        const chunk = current.subarray(0, n);
        if (n >= SMALL_READ_BYTES) large = true;
        // The shared buffer is read into by the next read of any socket: copied out, never kept.
        if (current === shared) {
          const copy = Buffer.from(chunk);
          return reads.sink ? reads.sink(copy) : socket.push(copy);
        }
        if (reads.sink) return reads.sink(chunk);
        if (n < SMALL_READ_BYTES) return socket.push(Buffer.from(chunk));
        handedOut = true;
        return socket.push(chunk);
      },
    },
  });
  return Object.assign(socket, { [kReads]: reads });
}

/**
 * Makes `upstream`, when {@link connectMember} made it, write what it reads straight into
 * `client` from its own buffer, `counted` told each chunk's length; it then ends `client`
 * when it ends. False when `upstream` is another stream (a host's tunnel): the caller pipes.
 *
 * The buffer is read into again only once the client's socket has taken the chunk
 * written from it: at once when the kernel took it all, else when its write completed.
 */
export function sinkInto(upstream: Duplex, client: Duplex, counted: (bytes: number) => void): boolean {
  if (!(kReads in upstream)) return false;
  const own = upstream as Duplex & { [kReads]: Reads };
  // Anything read before the relay and not consumed yet goes first, in order (its own buffers: safe to queue).
  for (let c = own.read() as Buffer | null; c !== null; c = own.read() as Buffer | null) {
    counted(c.length);
    client.write(c);
  }
  own[kReads].sink = (chunk) => {
    counted(chunk.length);
    let waiting = false;
    client.write(chunk, () => {
      if (waiting) own.resume();
    });
    if (client.writableLength === 0) return true;
    waiting = true;
    return false;
  };
  own.once('end', () => client.end());
  // Flowing: reads go on (the sink), and the member's end is emitted as 'end'.
  own.resume();
  return true;
}
