/**
 * The gateway's member connection that reads into a buffer of its own
 * (electron/services/gateway/member-socket.ts, issue 40): before a relay takes it, it reads
 * as any socket; once relayed, every byte reaches the client in order and unchanged even
 * when the client reads slowly (the buffer is read into again only once the client's
 * socket took what was written from it), the bytes are counted, and the member's end ends
 * the client. A plain stream is left to the caller. Through the gateway, a tunnel carries
 * the same bytes unchanged by an HTTP member and by a SOCKS5 one (whose exchange is read
 * by the socks package before the relay).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayMemberRoute, GatewayServer } from '../../../electron/services/gateway/gateway-server.js';
import { connectMember, sinkInto } from '../../../electron/services/gateway/member-socket.js';
import { getThroughProxy, littleProxy } from '../../support/little-proxy.js';
import { startSocks5Server } from '../../support/socks5-server.js';

/** The one member of these tests, on loopback at `port`. */
const memberAt = (
  port: number,
  kind: GatewayMemberRoute['kind'],
  credentials: NonNullable<GatewayMemberRoute['credentials']>,
): GatewayMemberRoute => ({
  key: 'edge/m',
  name: 'm',
  host: 'edge',
  labels: {},
  usable: true,
  address: '127.0.0.1',
  port,
  kind,
  credentials,
});

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A server on 127.0.0.1 that hands each connection to `onSocket`; its port. */
async function listen(onSocket: (s: Socket) => void): Promise<number> {
  const server: Server = createServer(onSocket);
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** Everything `s` receives until its end, read slowly: paused a little after each chunk, so a relay's writes back up. */
function readSlowly(s: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    s.on('data', (c: Buffer) => {
      parts.push(c);
      s.pause();
      setTimeout(() => s.resume(), 1);
    });
    s.once('end', () => resolve(Buffer.concat(parts)));
    s.once('error', reject);
  });
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
// Random bytes: a chunk read over one still being written would show in the hash.
const body = randomBytes(8 * 1024 * 1024 + 123);

describe('a member socket with its own read buffer', () => {
  it('reads as any socket before a relay, then relays every byte in order to a slow client, and ends it', async () => {
    const memberPort = await listen((s) => {
      s.once('data', () => {
        s.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        setTimeout(() => s.end(body), 20);
      });
    });
    // The client's side: the relay writes into the socket this server accepts; `reader` is the client.
    let accept!: (s: Socket) => void;
    const accepted = new Promise<Socket>((r) => (accept = r));
    const reader = connect({ host: '127.0.0.1', port: await listen((s) => accept(s)) });
    const received = readSlowly(reader);
    const client = await accepted;

    const upstream = connectMember('127.0.0.1', memberPort);
    await new Promise<void>((r) => upstream.once('connect', () => r()));
    upstream.write('CONNECT x:1 HTTP/1.1\r\n\r\n');
    const answer = await new Promise<string>((resolve) => upstream.once('data', (c: Buffer) => resolve(c.toString())));
    expect(answer).toBe('HTTP/1.1 200 Connection Established\r\n\r\n');

    let counted = 0;
    expect(sinkInto(upstream, client, (n) => (counted += n))).toBe(true);
    const got = await received;
    expect(got.length).toBe(body.length);
    expect(sha256(got)).toBe(sha256(body));
    expect(counted).toBe(body.length);
  });

  it('without a relay, gives each read a buffer of its own (a reader may keep them all)', async () => {
    const port = await listen((s) => s.end(body));
    const got = await readSlowly(connectMember('127.0.0.1', port));
    expect(sha256(got)).toBe(sha256(body));
  });

  it('keeps small reads of sockets reading at once apart (they share one buffer, copied out)', async () => {
    // Written in small pieces a turn apart, so each read is small and lands in the shared buffer.
    const trickle = (data: Buffer) => (s: Socket) => {
      let at = 0;
      const next = () => {
        if (at >= data.length) return void s.end();
        s.write(data.subarray(at, (at += 1000)));
        setImmediate(next);
      };
      next();
    };
    const bodies = [randomBytes(400_000), randomBytes(400_000)];
    const ports = await Promise.all(bodies.map((b) => listen(trickle(b))));
    const got = await Promise.all(ports.map((port) => readSlowly(connectMember('127.0.0.1', port))));
    expect(got.map(sha256)).toEqual(bodies.map(sha256));
  });

  it('leaves any other stream to the caller', () => {
    expect(sinkInto(new PassThrough(), new PassThrough(), () => undefined)).toBe(false);
  });

  it.each(['http', 'socks5'] as const)(
    'carries a tunnel unchanged through the gateway and a %s member',
    async (kind) => {
      // The target sends the body as soon as a tunnel reaches it, then closes.
      const originPort = await listen((s) => s.end(body));
      const credentials = { username: 'member', password: 'member-pass' };
      let port: number;
      if (kind === 'http') {
        const p = await littleProxy(credentials.username, credentials.password);
        closers.push(() => p.close());
        port = p.port;
      } else {
        const p = await startSocks5Server({ ...credentials, route: () => originPort });
        closers.push(() => p.close());
        port = p.port;
      }
      const member = memberAt(port, kind, credentials);
      const gateway = new GatewayServer({
        members: () => [member],
        clients: async () => [{ name: 'ci', password: 'gateway-pass' }],
      });
      closers.push(() => gateway.close());
      const gatewayPort = (await gateway.listen(0)).port;

      const s = connect({ host: '127.0.0.1', port: gatewayPort });
      s.write(
        `CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\nProxy-Authorization: Basic ${Buffer.from('ci:gateway-pass').toString('base64')}\r\n\r\n`,
      );
      const got = await readSlowly(s);
      const answer = 'HTTP/1.1 200 Connection Established\r\n\r\n';
      expect(got.subarray(0, answer.length).toString()).toBe(answer);
      expect(got.length - answer.length).toBe(body.length);
      expect(sha256(got.subarray(answer.length))).toBe(sha256(body));
      expect(gateway.counters.snapshot().members['edge/m']?.bytesIn).toBe(body.length);
    },
  );

  it('answers a plain GET through the gateway and a socks5 member', async () => {
    const origin = createHttpServer((req, res) => res.end(`hello ${req.url}`));
    closers.push(() => new Promise<void>((r) => origin.close(() => r())));
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    const originPort = (origin.address() as AddressInfo).port;
    const socks = await startSocks5Server({ username: 'member', password: 'member-pass', route: () => originPort });
    closers.push(() => socks.close());
    const gateway = new GatewayServer({
      members: () => [memberAt(socks.port, 'socks5', { username: 'member', password: 'member-pass' })],
      clients: async () => [{ name: 'ci', password: 'gateway-pass' }],
      connectTimeoutMs: 2_000,
    });
    closers.push(() => gateway.close());
    const port = (await gateway.listen(0)).port;
    const got = await getThroughProxy('127.0.0.1', port, `http://127.0.0.1:${originPort}/x`, 'ci:gateway-pass');
    expect(got).toEqual({ status: 200, body: 'hello /x' });
  });
});
