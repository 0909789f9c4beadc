/**
 * Serve mode's bridge (renderer/serve-bridge.ts) against a real WebSocket server on
 * loopback, with `ws`'s client as the page's WebSocket: calls before the socket opens
 * wait for it, answers find their call by id, events reach their listeners, a dropped
 * socket fails the calls in flight with the contract's Disconnected and reconnects.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebSocket as ServerSocket, WebSocket as WsClient, WebSocketServer } from 'ws';
import { createServeBridge, installServeBridge } from '../../../renderer/serve-bridge.js';
import { ErrorNames, type RawBridge, type WsRequest } from '../../../shared/ipc-transport.js';

/** A browser's WebSocket never throws on a failed connection: it fires error, then close. */
class PageWebSocket extends WsClient {
  constructor(url: string) {
    super(url);
    this.on('error', () => {});
  }
}

/** A server that hands each connection to the test, and the requests it received. */
async function server() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const connections: ServerSocket[] = [];
  const requests: WsRequest[] = [];
  const waiting: Array<(s: ServerSocket) => void> = [];
  const paths: string[] = [];
  wss.on('connection', (socket, request) => {
    connections.push(socket);
    paths.push(request.url ?? '');
    socket.on('message', (data) => requests.push(JSON.parse(String(data)) as WsRequest));
    waiting.splice(0).forEach((w) => w(socket));
  });
  const { port } = wss.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    requests,
    connections,
    paths,
    /** The next connection (or the one already there, when `index` is given). */
    connection: (index: number) =>
      connections[index]
        ? Promise.resolve(connections[index])
        : new Promise<ServerSocket>((resolve) => waiting.push(resolve)),
    /** Stops listening and drops every connection (the bridge then retries in vain, slowly). */
    close: () =>
      new Promise<void>((resolve) => {
        wss.close(() => resolve());
        for (const c of wss.clients) c.terminate();
      }),
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  for (const s of servers.splice(0)) await s.close();
});

async function connected() {
  vi.stubGlobal('WebSocket', PageWebSocket);
  const srv = await server();
  servers.push(srv);
  const bridge: RawBridge = createServeBridge(srv.url);
  return { srv, bridge };
}

describe('serve bridge', () => {
  it('sends calls made before the socket opens once it does, and pairs answers by id, in any order', async () => {
    const { srv, bridge } = await connected();
    const first = bridge.invoke('config:get');
    const second = bridge.invoke('proxies:inspect', { name: 'web-1' });
    const socket = await srv.connection(0);
    await until(() => srv.requests.length === 2);
    expect(srv.requests.map((r) => r.channel)).toEqual(['config:get', 'proxies:inspect']);
    expect(srv.requests[0]).not.toHaveProperty('input');
    const [a, b] = srv.requests as [WsRequest, WsRequest];
    socket.send('not json: ignored');
    socket.send(
      JSON.stringify({
        id: b.id,
        envelope: { ok: false, error: { name: 'ProxyNotFoundError', message: 'no proxy named web-1' } },
      }),
    );
    socket.send(JSON.stringify({ id: a.id, envelope: { ok: true, value: { path: 'config.yaml' } } }));
    await expect(first).resolves.toEqual({ ok: true, value: { path: 'config.yaml' } });
    await expect(second).resolves.toMatchObject({ ok: false, error: { name: 'ProxyNotFoundError' } });
  });

  it('delivers each event to its listeners until they unsubscribe', async () => {
    const { srv, bridge } = await connected();
    const got: unknown[] = [];
    const off = bridge.on('task:update', (p) => got.push(p));
    bridge.on('host:status', (p) => got.push(p));
    const socket = await srv.connection(0);
    socket.send(JSON.stringify({ event: 'task:update', payload: { id: 't1' } }));
    await until(() => got.length === 1);
    off();
    socket.send(JSON.stringify({ event: 'task:update', payload: { id: 't2' } }));
    // Messages arrive in order: once this one is in, t2 has been seen (and must not be delivered).
    socket.send(JSON.stringify({ event: 'host:status', payload: { name: 'edge-a' } }));
    await until(() => got.length === 2);
    expect(got).toEqual([{ id: 't1' }, { name: 'edge-a' }]);
  });

  it('fails the calls in flight with Disconnected when the socket drops, reconnects, and works again', async () => {
    const { srv, bridge } = await connected();
    const socket = await srv.connection(0);
    const lost = bridge.invoke('proxies:list');
    await until(() => srv.requests.length === 1);
    socket.close(1001);
    await expect(lost).resolves.toMatchObject({
      ok: false,
      error: { name: ErrorNames.disconnected, message: expect.stringMatching(/serve stopped.*may not have completed/) },
    });
    const again = await srv.connection(1);
    const next = bridge.invoke('app:info');
    await until(() => srv.requests.length === 2);
    again.send(JSON.stringify({ id: srv.requests[1]!.id, envelope: { ok: true, value: 'back' } }));
    await expect(next).resolves.toEqual({ ok: true, value: 'back' });
    expect(srv.connections.length).toBe(2);
  });

  it('installs itself as window.egress only in a page served over HTTP that has no bridge yet', async () => {
    vi.stubGlobal('WebSocket', PageWebSocket);
    const preload: RawBridge = { invoke: () => Promise.resolve({ ok: true, value: null }), on: () => () => {} };
    vi.stubGlobal('window', { egress: preload });
    vi.stubGlobal('location', { protocol: 'http:', host: '127.0.0.1:9' });
    installServeBridge();
    expect(window.egress).toBe(preload);
    vi.stubGlobal('window', {});
    vi.stubGlobal('location', { protocol: 'file:', host: '' });
    installServeBridge();
    expect(window.egress).toBeUndefined();
    const srv = await server();
    servers.push(srv);
    vi.stubGlobal('location', { protocol: 'http:', host: new URL(srv.url).host });
    installServeBridge();
    expect(Object.isFrozen(window.egress)).toBe(true);
    // It reaches the page's own origin, on the contract's path.
    await srv.connection(0);
    expect(srv.paths).toEqual(['/ws']);
  });
});
