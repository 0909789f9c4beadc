/**
 * The probe through a proxy, against a proxy stand-in on 127.0.0.1: it checks BasicAuth
 * like tinyproxy and answers the absolute-form URLs itself (their names never resolve and
 * nothing leaves loopback).
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoedAddress, probeProxy } from '../../../electron/services/health/proxy-probe.js';
import { type Socks5Server, startSocks5Server } from '../../support/socks5-server.js';

const credentials = { username: 'u1', password: 'p:ss wörd' };
const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
let server: Server;
let port: number;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.headers['proxy-authorization'] !== expected)
      return void res.writeHead(407, { 'proxy-authenticate': 'Basic realm="tinyproxy"' }).end();
    switch (req.url) {
      case '/':
        return void res.writeHead(400).end('Bad Request'); // what tinyproxy says to a request that is not for a proxy
      case 'http://check.invalid/ok':
        return void res.writeHead(204).end();
      case 'http://check.invalid/down':
        return void res.writeHead(503).end();
      case 'http://echo.invalid/':
        return void res.writeHead(200).end('203.0.113.9\n');
      case 'http://echo.invalid/json':
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ip":"2001:db8::5"}');
      case 'http://echo.invalid/html':
        return void res.writeHead(200).end('<html>login</html>');
      case 'http://hang.invalid/':
        return; // accepts, never answers
      default:
        return void res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const t = () => ({ address: '127.0.0.1', port, credentials });

describe('probeProxy', () => {
  it('without a check URL: any HTTP answer from the proxy itself but 407 means it works', async () => {
    const r = await probeProxy(t(), { timeoutMs: 2000 });
    expect(r).toMatchObject({ ok: true, status: 400 });
    expect(r.latencyMs).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe('/');
  });

  it('sends the credentials: without them the proxy says 407 and the probe fails saying so', async () => {
    expect(await probeProxy({ address: '127.0.0.1', port }, { timeoutMs: 2000 })).toMatchObject({
      ok: false,
      status: 407,
      error: 'the proxy refused the credentials (407)',
    });
  });

  it('a check URL in absolute form: healthy on 2xx, failing with the status otherwise', async () => {
    expect(await probeProxy(t(), { url: 'http://check.invalid/ok', timeoutMs: 2000 })).toMatchObject({
      ok: true,
      status: 204,
    });
    expect(await probeProxy(t(), { url: 'http://check.invalid/down', timeoutMs: 2000 })).toMatchObject({
      ok: false,
      status: 503,
      error: 'the check URL answered 503 through the proxy',
    });
  });

  it('an echo URL: the exit address, in text or JSON; an answer that is not an address says so', async () => {
    expect(await probeProxy(t(), { url: 'http://echo.invalid/', echo: true, timeoutMs: 2000 })).toMatchObject({
      ok: true,
      exitAddress: '203.0.113.9',
    });
    expect(await probeProxy(t(), { url: 'http://echo.invalid/json', echo: true, timeoutMs: 2000 })).toMatchObject({
      ok: true,
      exitAddress: '2001:db8::5',
    });
    const html = await probeProxy(t(), { url: 'http://echo.invalid/html', echo: true, timeoutMs: 2000 });
    expect(html).toMatchObject({ ok: true, error: 'the echo URL did not answer an address' });
    expect(html.exitAddress).toBeUndefined();
  });

  it('a proxy that accepts and never answers fails at the timeout; a closed port fails at once', async () => {
    const started = Date.now();
    expect(await probeProxy(t(), { url: 'http://hang.invalid/', timeoutMs: 300 })).toMatchObject({
      ok: false,
      error: 'no answer within 0.3 s',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await probeProxy({ address: '127.0.0.1', port: freePort }, { timeoutMs: 2000 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it('echoedAddress reads plain and JSON answers only when they hold an address', () => {
    expect(echoedAddress(' 198.51.100.4\r\n')).toBe('198.51.100.4');
    expect(echoedAddress('{"ip": "198.51.100.4"}')).toBe('198.51.100.4');
    expect(echoedAddress('{"ip": 5}')).toBeUndefined();
    expect(echoedAddress('{oops')).toBeUndefined();
    expect(echoedAddress('not an address')).toBeUndefined();
  });
});

describe('probeProxy through a SOCKS5 proxy (a SOCKS5 stand-in with username/password)', () => {
  let socks: Socks5Server;
  let origin: Server;
  let originPort = 0;
  const socksCreds = { username: 'egress', password: 'pw-1.x' };
  beforeAll(async () => {
    origin = createServer((req, res) => {
      if (req.url === '/ok') return void res.writeHead(204).end();
      if (req.url === '/echo') return void res.writeHead(200).end('198.51.100.4\n');
      res.writeHead(503).end();
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    originPort = (origin.address() as AddressInfo).port;
    // check.invalid reaches the origin; anything else (the proxy's own loopback port included) is refused.
    socks = await startSocks5Server({ ...socksCreds, route: (host) => (host === 'check.invalid' ? originPort : null) });
  });
  afterAll(async () => {
    await socks.close();
    origin.closeAllConnections();
    await new Promise((r) => origin.close(r));
  });
  const s = (credentials = socksCreds) => ({
    address: '127.0.0.1',
    port: socks.port,
    credentials,
    kind: 'socks5' as const,
  });

  it('fetches the check URL through the tunnel, the name resolved by the proxy', async () => {
    expect(await probeProxy(s(), { url: 'http://check.invalid/ok', timeoutMs: 2000 })).toMatchObject({
      ok: true,
      status: 204,
    });
    expect(socks.connects.at(-1)).toBe('check.invalid:80');
    expect(await probeProxy(s(), { url: 'http://check.invalid/echo', echo: true, timeoutMs: 2000 })).toMatchObject({
      ok: true,
      exitAddress: '198.51.100.4',
    });
    expect(await probeProxy(s(), { url: 'http://check.invalid/down', timeoutMs: 2000 })).toMatchObject({
      ok: false,
      status: 503,
    });
  });

  it('without a check URL: a refused CONNECT after a good login still means it works', async () => {
    expect(await probeProxy(s(), { timeoutMs: 2000 })).toMatchObject({ ok: true });
    expect(socks.connects.at(-1)).toBe(`127.0.0.1:${socks.port}`);
  });

  it('a wrong password fails, saying the proxy refused the credentials', async () => {
    expect(await probeProxy(s({ username: 'egress', password: 'wrong' }), { timeoutMs: 2000 })).toMatchObject({
      ok: false,
      error: 'the proxy refused the credentials (SOCKS5)',
    });
    expect(
      await probeProxy(s({ username: 'egress', password: 'wrong' }), {
        url: 'http://check.invalid/ok',
        timeoutMs: 2000,
      }),
    ).toMatchObject({ ok: false });
  });

  it('an unreachable check URL is a failure naming it', async () => {
    const r = await probeProxy(s(), { url: 'http://other.invalid/', timeoutMs: 2000 });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/could not reach the check URL/);
  });
});
