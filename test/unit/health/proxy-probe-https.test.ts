/**
 * An https check/echo URL through an HTTP proxy: CONNECT, then TLS to the URL's host with
 * its certificate verified. All on loopback: a CONNECT proxy of the test's own and an https
 * echo server with a certificate made here by openssl (skipped, saying so, without it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeProxy } from '../../../electron/services/health/proxy-probe.js';
import { skipBecause } from '../../support/skip.js';
import { tempDir } from '../../support/temp-dir.js';

let cert: { key: string; cert: string } | undefined;
let why = '';
const servers: Server[] = [];
let proxyPort = 0;
let echoPort = 0;
const AUTH = `Basic ${Buffer.from('u:p').toString('base64')}`;

const listen = (s: Server) =>
  new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));

beforeAll(async () => {
  try {
    const dir = tempDir('egress-https-probe-');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
      ],
      { stdio: 'ignore' },
    );
    cert = { key: readFileSync(join(dir, 'k.pem'), 'utf8'), cert: readFileSync(join(dir, 'c.pem'), 'utf8') };
  } catch (err) {
    why = `openssl could not make a test certificate: ${(err as Error).message}`;
    return;
  }
  const echo = createHttpsServer(cert, (req, res) => res.end(`${req.socket.remoteAddress?.replace(/^::ffff:/, '')}\n`));
  const proxy = createServer((_, res) => res.writeHead(400).end());
  proxy.on('connect', (req, client, head) => {
    if (req.headers['proxy-authorization'] !== AUTH) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const up = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      up.write(head);
      up.pipe(client).pipe(up);
    });
    up.on('error', () => client.destroy());
  });
  servers.push(echo, proxy);
  echoPort = await listen(echo);
  proxyPort = await listen(proxy);
});
afterAll(() => servers.forEach((s) => s.close()));

describe('probeProxy over https', () => {
  it('CONNECT with the credentials, TLS verified against the given CA: the exit address; a refused login and an untrusted certificate fail saying so', async (ctx) => {
    if (!cert) skipBecause(ctx, why);
    const target = { address: '127.0.0.1', port: proxyPort, credentials: { username: 'u', password: 'p' } };
    const url = `https://127.0.0.1:${echoPort}/`;
    expect(await probeProxy(target, { url, echo: true, timeoutMs: 5000, ca: cert!.cert })).toMatchObject({
      ok: true,
      status: 200,
      exitAddress: '127.0.0.1',
    });
    expect(
      await probeProxy(
        { ...target, credentials: { username: 'u', password: 'wrong' } },
        { url, echo: true, timeoutMs: 5000, ca: cert!.cert },
      ),
    ).toMatchObject({ ok: false, status: 407, error: 'the proxy refused the credentials (407)' });
    expect(await probeProxy(target, { url, timeoutMs: 5000 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^TLS to the check URL: .*self[- ]signed/i),
    });
  });
});
