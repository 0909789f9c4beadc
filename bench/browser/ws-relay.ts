/**
 * A relay in front of `egress-desk serve` for benchmarks (g) and (m): the page loads the app from the
 * relay's origin and opens its socket to the relay, which forwards everything to serve and
 * back, fakes the answers named in `answers` (fake-listing.ts's {@link answerFaker}) and
 * pushes events on the page's socket as serve would.
 *
 * Why not Playwright's WebSocket routing, as the other benchmarks and tests use: Playwright
 * hands each message to the page through a DevTools call, and for a push of 1,000 rows'
 * figures (about 200 KB) that call cost the page's main thread 15-20 ms more than the
 * message itself (a trace of (m) without scrolling: 24-38 ms a push, of which the app's own
 * work was 6-21 ms). In (g), the traffic and health answers that follow the listing made its
 * first render 494 ms through the routing against 186 ms through this relay (same build,
 * back to back). A real socket delivers the frame as serve does, so the benchmarks measure
 * the app and not the harness. Written here on `ws` (a dependency already: serve's own socket).
 */
import { type IncomingMessage, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { type FakeAnswers, answerFaker } from './fake-listing.js';

export interface WsRelay {
  /** Where the page is to go: `http://127.0.0.1:PORT`. */
  origin: string;
  /** Sends every open page socket an event, as serve pushes one. */
  push(event: string, payload: unknown): void;
  close(): Promise<void>;
}

export interface WsRelayOptions {
  /**
   * Runs just before each fake answer is sent to the page (benchmark (g) reads Chromium's CPU
   * counters there); the page's messages after it wait for it, so their order is kept.
   */
  beforeAnswer?: (channel: string) => Promise<void>;
}

/** Starts a relay to serve at `serveOrigin` on a free port of 127.0.0.1. */
export async function startWsRelay(
  serveOrigin: string,
  answers: FakeAnswers,
  { beforeAnswer }: WsRelayOptions = {},
): Promise<WsRelay> {
  const target = new URL(serveOrigin);
  // serve accepts only its own Host and, on the socket, its own Origin: the relay speaks for the page.
  const towardServe = (req: IncomingMessage) => ({
    ...req.headers,
    host: target.host,
    ...(req.headers.origin ? { origin: target.origin } : {}),
  });
  const pages = new Set<WebSocket>();
  const http = createServer((req, res) => {
    const forward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: towardServe(req) },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', (err) => res.destroy(err));
    req.pipe(forward);
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    const upstream = new WebSocket(`ws://${target.host}${req.url ?? '/ws'}`, {
      headers: { cookie: req.headers.cookie ?? '', origin: target.origin },
    });
    upstream.on('error', () => socket.destroy());
    upstream.on('unexpected-response', (_req, res) => socket.end(`HTTP/1.1 ${res.statusCode ?? 502} relayed\r\n\r\n`));
    upstream.on('open', () =>
      wss.handleUpgrade(req, socket, head, (page) => {
        const faker = answerFaker(answers);
        pages.add(page);
        page.on('message', (m) => {
          const text = String(m);
          faker.fromPage(text);
          upstream.send(text);
        });
        let sent = Promise.resolve();
        upstream.on('message', (m) => {
          const { text, channel } = faker.fromServer(String(m));
          if (!beforeAnswer) return page.send(text);
          sent = sent.then(async () => {
            if (channel) await beforeAnswer(channel).catch(() => undefined);
            page.send(text);
          });
        });
        page.on('close', () => {
          pages.delete(page);
          upstream.close();
        });
        upstream.on('close', () => page.close());
      }),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    push(event, payload) {
      const text = JSON.stringify({ event, payload });
      for (const page of pages) if (page.readyState === WebSocket.OPEN) page.send(text);
    },
    async close() {
      for (const page of pages) page.terminate();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
