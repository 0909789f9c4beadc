/**
 * `egress-desk serve`'s server: the built renderer over HTTP and the IPC contract over a
 * WebSocket, on 127.0.0.1 only. Every request needs the session from the one-time link;
 * the WebSocket also needs the server's own Origin, so another page open in the same
 * browser (which would carry the cookie only if SameSite failed) still cannot call in.
 */
import { createReadStream } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { SERVE_MAX_MESSAGE_BYTES, SERVE_WS_PATH } from '../../shared/ipc-transport.js';
import type { Router } from '../ipc/router.js';
import { ServeAuth } from './auth.js';
import { SECURITY_HEADERS } from './headers.js';
import { contentType, resolveStatic } from './static-files.js';
import { serveContract } from './ws-endpoint.js';
import { messageOf } from '../../shared/errors.js';

export interface ServeOptions {
  /** The built renderer (absolute path). */
  rendererDir: string;
  router: Router;
  log: Logger;
  /** 0 (the default) picks a free port. */
  port?: number;
}

/** A running server. */
export interface ServeServer {
  /** The one-time link: `http://127.0.0.1:PORT/?token=…`. */
  url: string;
  origin: string;
  port: number;
  /** Pushes an event to every connected browser (`{event, payload}`). */
  broadcast(event: string, payload: unknown): void;
  /** Closes the browsers' sockets and the server, then the backend behind the router (its tasks and connections). */
  close(): Promise<void>;
}

/** Why a request without a session is refused, in words for the person who opened it. */
export const UNAUTHORIZED_TEXT =
  'Egress Desk: this page needs the one-time link that `egress-desk serve` printed.\n' +
  'Open that link (it works once, in one browser), or restart `egress-desk serve` for a new one.\n';

function reply(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

function refuseUpgrade(socket: Duplex, status: 401 | 403 | 404, reason: string): void {
  const title = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status];
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`,
  );
}

/** Says goodbye to every browser (code 1001), and cuts the ones that do not answer within `graceMs`. */
async function closeClients(wss: WebSocketServer, graceMs = 500): Promise<void> {
  const clients = [...wss.clients];
  const gone = clients.map((c) => new Promise<void>((resolve) => c.once('close', () => resolve())));
  for (const client of clients) client.close(1001, 'egress-desk serve is stopping');
  const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
  await Promise.race([Promise.all(gone), timer]);
  for (const client of wss.clients) client.terminate();
}

/** Starts the server on 127.0.0.1; resolves once it listens. Rejects with the listen error (EADDRINUSE…). */
export async function startServeServer(options: ServeOptions): Promise<ServeServer> {
  const { rendererDir, router, log } = options;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // 127.0.0.1 and nothing else: the token is the only lock, and it must not face the network.
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const auth = new ServeAuth(port);
  const wss = new WebSocketServer({ noServer: true, maxPayload: SERVE_MAX_MESSAGE_BYTES });
  const broadcast = serveContract(wss, router, log);
  // Every event of the contract (`events` in shared/ipc.ts) to every browser, except console:data and
  // console:closed, which go only to the socket whose session it is (ws-endpoint.ts, console-routes.ts).
  const unsubscribe = router.subscribe?.((event, payload) => broadcast(event, payload));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.host !== auth.host)
      return reply(res, 403, 'Egress Desk: wrong Host header; open the link that egress-desk serve printed.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return reply(res, 405, 'Egress Desk: only GET is served here.\n', { Allow: 'GET, HEAD' });
    const url = new URL(req.url ?? '/', auth.origin);
    const token = url.searchParams.get('token');
    if (token !== null) {
      const session = auth.redeem(token);
      if (session) {
        log.info('serve: the one-time link was opened; session started');
        // Redirect so the token leaves the address bar (and the history entry).
        res.writeHead(303, { ...SECURITY_HEADERS, Location: '/', 'Set-Cookie': auth.cookie(session) });
        res.end();
        return;
      }
      if (auth.hasSession(req.headers.cookie)) return reply(res, 303, '', { Location: '/' });
      log.warn('serve: refused a spent or wrong token');
      return reply(res, 401, UNAUTHORIZED_TEXT);
    }
    if (!auth.hasSession(req.headers.cookie)) return reply(res, 401, UNAUTHORIZED_TEXT);
    const file = await resolveStatic(rendererDir, url.pathname);
    if (!file) return reply(res, 404, 'Egress Desk: not found.\n');
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': contentType(file) });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err: messageOf(err) }, 'serve: request failed');
      if (!res.headersSent) reply(res, 500, 'Egress Desk: internal error (see the log).\n');
      else res.destroy();
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = new URL(req.url ?? '/', auth.origin).pathname;
    if (path !== SERVE_WS_PATH) return refuseUpgrade(socket, 404, 'no WebSocket here');
    if (req.headers.host !== auth.host) return refuseUpgrade(socket, 403, 'wrong Host');
    if (!auth.hasSession(req.headers.cookie))
      return refuseUpgrade(socket, 401, 'no session: open the link egress-desk serve printed');
    // The cookie alone is not enough: only our own page may open the socket.
    if (req.headers.origin !== auth.origin) {
      log.warn({ origin: req.headers.origin ?? null }, 'serve: refused a WebSocket from another origin');
      return refuseUpgrade(socket, 403, 'wrong Origin');
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  return {
    url: auth.url,
    origin: auth.origin,
    port,
    broadcast,
    close: async () => {
      unsubscribe?.();
      await closeClients(wss);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections would hold close() open; the browser reconnects to nothing anyway.
      server.closeAllConnections();
      await closed;
      // serve runs until stopped: its backend goes with it, so no connection keeps the process alive.
      await router.close?.();
    },
  };
}
