/**
 * A small HTTP forward proxy on loopback for the gateway's unit tests (test/unit/gateway):
 * BasicAuth, `CONNECT` to any host:port, and absolute-URI requests, recording what it
 * relayed. It stands in for a member's tinyproxy where the test is about the gateway's own
 * logic; the guest lane runs the gateway in front of real tinyproxy and Dante guests.
 */
import { type IncomingMessage, type Server, createServer, request } from 'node:http';
import { type AddressInfo, type Socket, connect } from 'node:net';

export interface LittleProxy {
  port: number;
  /** What it relayed: `CONNECT host:port` or `GET http://…`, in order. */
  seen: string[];
  /** Connections accepted (whatever came of them). */
  connections: number;
  /** Answer CONNECT with this status instead of opening the tunnel (a member's filter, say). */
  refuseWith: number | undefined;
  close(): Promise<void>;
}

/** Starts one on 127.0.0.1 that takes `user:password`. */
export async function littleProxy(user: string, password: string): Promise<LittleProxy> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const sockets = new Set<Socket>();
  const state = { seen: [] as string[], connections: 0, refuseWith: undefined as number | undefined };
  const authorized = (req: IncomingMessage) => req.headers['proxy-authorization'] === expected;
  const server: Server = createServer((req, res) => {
    if (!authorized(req)) return void res.writeHead(407).end();
    state.seen.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const up = request(
      { host: url.hostname, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  server.on('connection', (s: Socket) => {
    state.connections++;
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on('error', () => client.destroy());
    if (!authorized(req)) return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    if (state.refuseWith) return void client.end(`HTTP/1.1 ${state.refuseWith} No\r\n\r\n`);
    state.seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const up = connect({ host: host!, port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    sockets.add(up);
    up.once('close', () => sockets.delete(up));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  });
}

/**
 * One plain GET of `target` (an absolute URL) through the HTTP proxy on `host:port`, with
 * `Proxy-Authorization: Basic` for `auth` (`user:password`) when given: the status and body.
 */
export function getThroughProxy(
  host: string,
  port: number | string,
  target: string,
  auth?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        port,
        path: target,
        headers: auth ? { 'proxy-authorization': `Basic ${Buffer.from(auth).toString('base64')}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
