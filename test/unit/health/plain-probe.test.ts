/**
 * The bare-socket probe (plain-probe.ts), against raw TCP stand-ins on 127.0.0.1 that
 * answer byte by byte as a real proxy might: a head split over writes, something that is
 * not HTTP, a close before or during the head, an endless head. Through probeProxy, as
 * the health monitor calls it.
 */
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { plainRequest } from '../../../electron/services/health/plain-probe.js';
import { probeProxy } from '../../../electron/services/health/proxy-probe.js';

let servers: Server[] = [];
const received: string[] = [];

/** A TCP server that reads one request head and then runs `answer` on the socket. */
async function standIn(answer: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    let head = '';
    socket.on('data', (d) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        received.push(head);
        answer(socket);
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
  received.length = 0;
});

const opts = { timeoutMs: 2000 };

describe('the plain-HTTP probe on a bare socket', () => {
  it('reads a head split over several writes, and sends one well-formed request with the credentials', async () => {
    const port = await standIn((s) => {
      s.write('HTTP/1.0 4');
      setTimeout(() => s.write('00 Bad Request\r\nServer: tinyproxy/1.11.1\r\n'), 20);
      setTimeout(() => s.end('\r\n<html>…</html>'), 40);
    });
    const r = await probeProxy({ address: '127.0.0.1', port, credentials: { username: 'u', password: 'p' } }, opts);
    expect(r).toMatchObject({ ok: true, status: 400 });
    expect(r.latencyMs).toBeGreaterThanOrEqual(20);
    expect(received[0]).toBe(
      `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nuser-agent: egress-desk-health\r\nconnection: close\r\nproxy-authorization: Basic ${Buffer.from('u:p').toString('base64')}\r\n\r\n`,
    );
  });

  it('a check URL is asked in absolute form; 4xx/5xx through the proxy fail, 407 names the credentials', async () => {
    const answers = [
      'HTTP/1.1 204 No Content\r\n\r\n',
      'HTTP/1.1 502 Bad Gateway\r\n\r\n',
      'HTTP/1.1 407 Proxy Authentication Required\r\n\r\n',
    ];
    const port = await standIn((s) => s.end(answers[received.length - 1]!));
    const url = 'http://check.invalid/ok?x=1';
    expect(await probeProxy({ address: '127.0.0.1', port }, { ...opts, url })).toMatchObject({ ok: true, status: 204 });
    expect(received[0]!.split('\r\n')[0]).toBe(`GET ${url} HTTP/1.1`);
    expect(await probeProxy({ address: '127.0.0.1', port }, { ...opts, url })).toMatchObject({
      ok: false,
      status: 502,
      error: 'the check URL answered 502 through the proxy',
    });
    expect(await probeProxy({ address: '127.0.0.1', port }, { ...opts, url })).toMatchObject({
      ok: false,
      status: 407,
      error: 'the proxy refused the credentials (407)',
    });
  });

  it('something that is not HTTP, a close before any answer, and a close in the middle of one each fail saying which', async () => {
    const notHttp = await standIn((s) => s.end('SSH-2.0-OpenSSH_9.2\r\n\r\n'));
    expect(await probeProxy({ address: '127.0.0.1', port: notHttp }, opts)).toMatchObject({
      ok: false,
      error: 'the proxy did not answer HTTP (it sent "SSH-2.0-OpenSSH_9.2....")',
    });
    const silent = await standIn((s) => s.end());
    expect(await probeProxy({ address: '127.0.0.1', port: silent }, opts)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/closed the connection without answering/),
    });
    const half = await standIn((s) => s.end('HTTP/1.1 200 OK\r\nServer: x'));
    expect(await probeProxy({ address: '127.0.0.1', port: half }, opts)).toMatchObject({
      ok: false,
      error: 'the proxy closed the connection in the middle of its answer',
    });
  });

  it('a head that never ends is cut at 16 KiB rather than read for ever', async () => {
    const port = await standIn((s) => s.write(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(20_000)}`));
    expect(await probeProxy({ address: '127.0.0.1', port }, opts)).toMatchObject({
      ok: false,
      error: "the proxy's answer had no end of headers in 16 KiB",
    });
  });

  it('refuses to send a header with a line break in it', () => {
    expect(() => plainRequest('/', { host: 'a\r\nx-injected: 1' })).toThrow(/line break in "host"/);
  });
});
