/**
 * The gateway's side towards a member (issue 40): reach the member's proxy port, then open a
 * tunnel to the client's target through it (HTTP `CONNECT` with the member's BasicAuth, or
 * a SOCKS5 `CONNECT` with its user name and password).
 *
 * Written here rather than taken from proxy-chain, which the issue suggests: proxy-chain
 * picks its upstream by URL and dials it itself, so it can neither reach a member through
 * its SSH host's stream (a guest network this machine has no route to) nor try another
 * member when the first one cannot be reached before any byte was relayed, which is what
 * makes a member that died between two health rounds invisible to clients. The SOCKS5 side
 * is the `socks` package over the stream we opened (its `existing_socket`).
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { SocksClient } from 'socks';
import type { ProxyCredentials, ProxyKind } from '../../../shared/proxy.js';
import { bracketHost } from '../../../shared/net.js';
import { messageOf } from '../../../shared/errors.js';
import { connectMember } from './member-socket.js';

/** How to reach one member's proxy. */
export interface MemberRoute {
  /** The proxy's address and port (as its clients use them). */
  address: string;
  port: number;
  /** Absent = http. */
  kind?: ProxyKind | undefined;
  credentials?: ProxyCredentials | undefined;
  /** Opens the stream to address:port from elsewhere (its SSH host); absent: a TCP connect from here. */
  tunnel?: (() => Promise<Duplex>) | undefined;
}

/** The member could not be reached (refused, timed out, its host's stream failed): nothing was relayed, another may be tried. */
export class MemberUnreachableError extends Error {
  override readonly name = 'MemberUnreachableError';
}

/** The member answered but would not open the tunnel (its status or SOCKS reply): the target's fault as often as its own. */
export class MemberRefusedError extends Error {
  override readonly name = 'MemberRefusedError';
  constructor(
    message: string,
    /** The member's HTTP status, when it answered one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Resolves with `p`, or rejects with `onTimeout()` after `ms` (and `p`'s value, if it comes later, is passed to `late`). */
function within<T>(p: Promise<T>, ms: number, onTimeout: () => Error, late: (v: T) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => ((done = true), reject(onTimeout())), ms);
    p.then(
      (v) => (done ? late(v) : (clearTimeout(timer), (done = true), resolve(v))),
      (err: unknown) => (done ? undefined : (clearTimeout(timer), (done = true), reject(err))),
    );
  });
}

/** Connects to the member's proxy port (through its host's stream where there is one), bounded by `timeoutMs`. */
export function reachMember(route: MemberRoute, timeoutMs: number): Promise<Duplex> {
  const where = `${bracketHost(route.address)}:${route.port}`;
  const opening: Promise<Duplex> = route.tunnel
    ? route.tunnel()
    : new Promise<Socket>((resolve, reject) => {
        // Reading into a buffer of its own: a tunnel's downloads are then written from it (member-socket.ts).
        const s = connectMember(route.address, route.port);
        s.once('connect', () => (s.removeAllListeners('error'), resolve(s)));
        s.once('error', (err) => (s.destroy(), reject(err)));
      });
  return within(
    opening.catch((err: unknown) => {
      throw new MemberUnreachableError(`cannot reach ${where}: ${messageOf(err)}`);
    }),
    timeoutMs,
    () => new MemberUnreachableError(`no connection to ${where} within ${timeoutMs} ms`),
    (late) => late.destroy(),
  );
}

/** The member's BasicAuth header value. */
export function basicAuth(credentials: ProxyCredentials): string {
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
}

/** Where a tunnel goes, and how long the member may take to open it. */
export interface TunnelTarget {
  host: string;
  port: number;
  timeoutMs: number;
}

/** An open tunnel: the stream to relay on, and what the member sent after its answer. */
export interface Tunnel {
  stream: Duplex;
  head: Buffer;
}

/** An answer head larger than this is not a proxy's CONNECT answer. */
const MAX_HEAD = 16 * 1024;

/**
 * Opens a tunnel to `host:port` over `stream` (already connected to the member's proxy).
 * Resolves with the stream, ready to relay, and any bytes the member sent after its answer.
 * A member that closes or stays silent is unreachable (another may be tried); one that
 * answers anything but success refused.
 */
export function tunnelThrough(stream: Duplex, route: MemberRoute, to: TunnelTarget): Promise<Tunnel> {
  if (route.kind === 'socks5') return socksTunnel(stream, route, to);
  const { host, port, timeoutMs } = to;
  const target = `${bracketHost(host)}:${port}`;
  const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
  if (route.credentials) lines.push(`Proxy-Authorization: ${basicAuth(route.credentials)}`);
  stream.write(`${lines.join('\r\n')}\r\n\r\n`);
  return new Promise((resolve, reject) => {
    let seen = Buffer.alloc(0);
    const timer = setTimeout(
      () => end(new MemberUnreachableError(`no answer to CONNECT within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const end = (err?: Error, head?: Buffer) => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (err) {
        stream.destroy();
        reject(err);
      } else resolve({ stream, head: head ?? Buffer.alloc(0) });
    };
    const onError = (err: Error) => end(new MemberUnreachableError(`the member's connection failed: ${err.message}`));
    const onClose = () => end(new MemberUnreachableError('the member closed the connection before answering CONNECT'));
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const at = seen.indexOf('\r\n\r\n');
      if (at < 0) {
        if (seen.length > MAX_HEAD) end(new MemberRefusedError('the member answered CONNECT with an oversized head'));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(seen.subarray(0, at).toString('latin1'));
      if (!status) return end(new MemberRefusedError('the member answered CONNECT with something that is not HTTP'));
      const code = Number(status[1]);
      if (code < 200 || code > 299)
        return end(new MemberRefusedError(`the member answered CONNECT with ${code}`, code));
      end(undefined, seen.subarray(at + 4));
    };
    stream.on('data', onData);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}

async function socksTunnel(stream: Duplex, route: MemberRoute, to: TunnelTarget): Promise<Tunnel> {
  const { host, port, timeoutMs } = to;
  try {
    const { socket } = await SocksClient.createConnection({
      existing_socket: stream,
      command: 'connect',
      // By name: the member resolves it, as a client's `--socks5-hostname` asks.
      destination: { host, port },
      proxy: {
        host: route.address,
        port: route.port,
        type: 5,
        ...(route.credentials ? { userId: route.credentials.username, password: route.credentials.password } : {}),
      },
      timeout: timeoutMs,
    });
    return { stream: socket, head: await excessOf(socket) };
  } catch (err) {
    stream.destroy();
    const message = messageOf(err);
    // The socks package says "Proxy connection timed out" and "Socket closed" for a member gone silent or away.
    if (/timed out|closed/i.test(message)) throw new MemberUnreachableError(`SOCKS5: ${message}`);
    throw new MemberRefusedError(`SOCKS5: ${message}`);
  }
}

/**
 * What the member sent after its SOCKS5 reply, in the same reads (a target that speaks first:
 * SSH, SMTP): the socks package hands it back as a `data` event in a `setImmediate` after it
 * resolved, and resumes the socket there. Taken as the tunnel's head, so that the relay writes
 * it first: piped, it came after the socket's next reads (out of order), and a relay writing
 * from the socket's own buffer (member-socket.ts) listens to no `data` event (lost).
 */
function excessOf(socket: Duplex): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const onData = (c: Buffer) => parts.push(c);
    socket.on('data', onData);
    // Queued after the package's own setImmediate, which runs first (the same check phase, in
    // order). No read can come between this one and the relay's listeners: the gateway
    // relays in the promise callbacks that follow, before the event loop polls again.
    setImmediate(() => {
      socket.off('data', onData);
      resolve(Buffer.concat(parts));
    });
  });
}
