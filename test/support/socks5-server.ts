/**
 * A SOCKS5 server on 127.0.0.1 for unit tests of SOCKS clients (the health probe): RFC 1928
 * CONNECT with RFC 1929 username/password, as Dante answers. Every destination is mapped
 * by `route` to a loopback port (names never resolve; nothing leaves loopback), and
 * `null` from it answers "connection refused" (reply 5), as a proxy that cannot reach it.
 */
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';

export interface Socks5Server {
  port: number;
  /** The destinations asked for, `host:port`. */
  connects: string[];
  close(): Promise<void>;
}

export async function startSocks5Server(o: {
  username: string;
  password: string;
  route: (host: string, port: number) => number | null;
}): Promise<Socks5Server> {
  const connects: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let buf = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' | 'done' = 'greeting';
    client.on('data', (chunk: Buffer) => {
      if (stage === 'done') return;
      buf = Buffer.concat([buf, chunk]);
      if (stage === 'greeting') {
        if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
        const methods = [...buf.subarray(2, 2 + buf[1]!)];
        buf = buf.subarray(2 + buf[1]!);
        if (!methods.includes(2)) return void client.end(Buffer.from([5, 0xff]));
        client.write(Buffer.from([5, 2]));
        stage = 'auth';
      }
      if (stage === 'auth') {
        if (buf.length < 2) return;
        const ulen = buf[1]!;
        if (buf.length < 3 + ulen || buf.length < 3 + ulen + buf[2 + ulen]!) return;
        const user = buf.subarray(2, 2 + ulen).toString();
        const plen = buf[2 + ulen]!;
        const pass = buf.subarray(3 + ulen, 3 + ulen + plen).toString();
        buf = buf.subarray(3 + ulen + plen);
        if (user !== o.username || pass !== o.password) return void client.end(Buffer.from([1, 1]));
        client.write(Buffer.from([1, 0]));
        stage = 'request';
      }
      if (stage === 'request') {
        if (buf.length < 5) return;
        const atyp = buf[3]!;
        const hostLen = atyp === 1 ? 4 : atyp === 3 ? 1 + buf[4]! : 16;
        if (buf.length < 4 + hostLen + 2) return;
        const host =
          atyp === 1
            ? [...buf.subarray(4, 8)].join('.')
            : atyp === 3
              ? buf.subarray(5, 5 + buf[4]!).toString()
              : buf.subarray(4, 20).toString('hex');
        const port = buf.readUInt16BE(4 + hostLen);
        const rest = buf.subarray(4 + hostLen + 2);
        stage = 'done';
        connects.push(`${host}:${port}`);
        const target = o.route(host, port);
        const reply = (code: number) => Buffer.from([5, code, 0, 1, 127, 0, 0, 1, 0, 0]);
        if (target === null) return void client.end(reply(5));
        const upstream = connect(target, '127.0.0.1', () => {
          client.write(reply(0));
          if (rest.length) upstream.write(rest);
          client.pipe(upstream).pipe(client);
        });
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.end(reply(5)));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connects,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
