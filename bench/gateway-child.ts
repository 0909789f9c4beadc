/**
 * One process of benchmark (n) (bench/gateway.ts), by its first argument, each on
 * 127.0.0.1 and in a process of its own, so that the gateway's memory is its own and no two
 * hops of the path share an event loop:
 *  - `origin`: the target, `/tiny` (a few bytes, for latency) and `/bytes/N` (N bytes,
 *    streamed from one 1 MiB block as the socket drains: never a whole body in memory);
 *  - `member`: the member, the small HTTP forward proxy of the gateway's unit tests
 *    (test/support/little-proxy.ts: BasicAuth, CONNECT and absolute-URI requests);
 *  - `gateway`: the gateway as the app runs it (GatewayServer with one member, one client,
 *    its access log written line by line to a file), the second argument its JSON input.
 * Each prints `{"port": …}` on a line once it listens, and exits when its stdin closes (the
 * bench ended, or died: no process outlives it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_NAME, CLIENT_PASSWORD, MEMBER_PASSWORD, MEMBER_USER } from './gateway-client.js';

// Each role imports only its own modules (below): a process's heap is part of what its relay
// costs (a larger one is collected more often), so the member must not carry the gateway's.

const BLOCK = Buffer.alloc(1024 * 1024, 0x61);

/** The origin: `/tiny`, and `/bytes/N` written block by block, waiting for `drain` (backpressure, not buffering). */
async function origin(): Promise<number> {
  const server: Server = createServer((req, res) => {
    const m = /^\/bytes\/(\d+)$/.exec(req.url ?? '');
    if (!m) return void res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 3 }).end('ok\n');
    let left = Number(m[1]);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': left });
    const write = (): void => {
      while (left > 0) {
        const n = Math.min(left, BLOCK.length);
        left -= n;
        if (!res.write(n === BLOCK.length ? BLOCK : BLOCK.subarray(0, n))) return void res.once('drain', write);
      }
      res.end();
    };
    write();
  });
  // 200 tunnels' connections at once, and the default backlog is ample; keep-alive for the tunnels' second GET.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

async function gateway(input: { memberPort: number }): Promise<number> {
  const { AccessLog } = await import('../electron/services/gateway/access-log.js');
  const { GatewayServer } = await import('../electron/services/gateway/gateway-server.js');
  // The access log is part of what a request costs in the app (one JSON line each, buffered by SonicBoom).
  const dir = mkdtempSync(join(tmpdir(), 'egress-bench-gateway-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const log = new AccessLog(join(dir, 'gateway-access.log'));
  const server = new GatewayServer({
    members: () => [
      {
        key: 'bench-host/bench-member',
        name: 'bench-member',
        host: 'bench-host',
        labels: {},
        usable: true,
        address: '127.0.0.1',
        port: input.memberPort,
        credentials: { username: MEMBER_USER, password: MEMBER_PASSWORD },
      },
    ],
    clients: async () => [{ name: CLIENT_NAME, password: CLIENT_PASSWORD }],
    log: (entry) => log.write(entry),
  });
  return (await server.listen(0, '127.0.0.1')).port;
}

async function main(): Promise<void> {
  const role = process.argv[2];
  let port: number;
  if (role === 'origin') port = await origin();
  else if (role === 'member') {
    const { littleProxy } = await import('../test/support/little-proxy.js');
    port = (await littleProxy(MEMBER_USER, MEMBER_PASSWORD)).port;
  } else if (role === 'gateway') {
    const input = JSON.parse(process.argv[3] ?? 'null') as { memberPort?: unknown } | null;
    if (typeof input?.memberPort !== 'number') throw new Error('gateway: expected {"memberPort": N}');
    port = await gateway({ memberPort: input.memberPort });
  } else throw new Error(`unknown role ${JSON.stringify(role)} (origin, member, gateway)`);
  process.stdin.resume();
  process.stdin.once('close', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway-child: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
