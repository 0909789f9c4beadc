/** A serve-mode server in this process, over a throwaway renderer and data directory. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { createAppServices } from '../../../electron/ipc/app-services.js';
import type { Router } from '../../../electron/ipc/router.js';
import { type ServeServer, startServeServer } from '../../../electron/serve/server.js';
import { silentLogger } from '../../support/silent-logger.js';
import { tempDir } from '../../support/temp-dir.js';

export interface Fixture {
  server: ServeServer;
  root: string;
  dataDir: string;
  rendererDir: string;
}

/** Starts a server; the renderer is a stand-in index.html and one asset, with a secret beside it. `router` replaces the default backend. */
export async function startFixture(options: { router?: Router } = {}): Promise<Fixture> {
  const root = tempDir('egress-serve-');
  const rendererDir = join(root, 'renderer');
  const dataDir = join(root, 'home');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Egress Desk</title>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'export {};');
  writeFileSync(join(root, 'secret.txt'), 'outside the renderer');
  symlinkSync(join(root, 'secret.txt'), join(rendererDir, 'link.txt'));
  const router = options.router ?? createAppServices(dataDir, 'serve', { version: '9.9.9' }).router;
  const server = await startServeServer({ rendererDir, router, log: silentLogger() });
  return { server, root, dataDir, rendererDir };
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP GET (node:http, so Host and paths go out exactly as written). */
export function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'GET', headers: { Host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens the one-time link and returns the session cookie (`name=value`). */
export async function login(server: ServeServer): Promise<string> {
  const url = new URL(server.url);
  const res = await get(server.port, `${url.pathname}${url.search}`);
  if (res.status !== 303) throw new Error(`login failed: ${res.status}`);
  const setCookie = res.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  return first!.split(';')[0]!;
}

/** A `ws` client to the server's socket with the given headers. */
export function connect(server: ServeServer, headers: Record<string, string>): WebSocket {
  return new WebSocket(`ws://127.0.0.1:${server.port}/ws`, { headers });
}

/** Resolves when the socket opens, or rejects with the HTTP status the upgrade was refused with. */
export function opened(socket: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    socket.once('error', reject);
  });
}

/** The next message on a socket, parsed. */
export function nextMessage(socket: WebSocket): Promise<unknown> {
  return new Promise((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))));
}
