import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeAuth, readCookie, sameSecret } from '../../../electron/serve/auth.js';
import { SERVE_CSP } from '../../../electron/serve/headers.js';
import { UNAUTHORIZED_TEXT } from '../../../electron/serve/server.js';
import { rendererIsBuilt } from '../../../electron/serve/static-files.js';
import { type Fixture, get, login, startFixture } from './support.js';

let fx: Fixture;
let cookie: string;
beforeAll(async () => {
  fx = await startFixture();
  cookie = await login(fx.server);
});
afterAll(() => fx.server.close());

function expectHardened(headers: Record<string, unknown>) {
  expect(headers['content-security-policy']).toBe(SERVE_CSP);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
}

describe('serve: the one-time link', () => {
  it('listens on 127.0.0.1 and prints a URL with a 32-byte base64url token', () => {
    expect(fx.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it('exchanges the token for an HttpOnly, SameSite=Strict cookie and redirects to /', async () => {
    const auth = new ServeAuth(1234);
    const session = auth.redeem(auth.token)!;
    expect(auth.cookie(session)).toMatch(
      /^egress-desk-session-1234=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).toMatch(/^egress-desk-session-\d+=/);
  });

  it('spends the token: a second use gets 401', async () => {
    const url = new URL(fx.server.url);
    const again = await get(fx.server.port, `/${url.search}`);
    expect(again.status).toBe(401);
    expect(again.body).toBe(UNAUTHORIZED_TEXT);
  });

  it('refuses a wrong token', async () => {
    const res = await get(fx.server.port, '/?token=nope');
    expect(res.status).toBe(401);
    expectHardened(res.headers);
  });
});

describe('serve: every request needs the session', () => {
  it('answers 401 with an explanation, hardened headers included, without the cookie', async () => {
    for (const path of ['/', '/index.html', '/assets/app.js', '/ws']) {
      const res = await get(fx.server.port, path);
      expect(res.status).toBe(401);
      expect(res.body).toMatch(/one-time link/);
      expectHardened(res.headers);
    }
  });

  it('refuses a forged cookie', async () => {
    const res = await get(fx.server.port, '/', { Cookie: `${cookie.split('=')[0]}=forged` });
    expect(res.status).toBe(401);
  });

  it('serves the renderer with the session, with CSP and nosniff', async () => {
    const index = await get(fx.server.port, '/', { Cookie: cookie });
    expect(index.status).toBe(200);
    expect(index.body).toContain('<title>Egress Desk</title>');
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expectHardened(index.headers);
    const script = await get(fx.server.port, '/assets/app.js', { Cookie: `other=1; ${cookie}` });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const res = await get(fx.server.port, '/', { Cookie: cookie, Host: `evil.example:${fx.server.port}` });
    expect(res.status).toBe(403);
  });

  it('lists no directories', async () => {
    const res = await get(fx.server.port, '/assets/', { Cookie: cookie });
    expect(res.status).toBe(404);
    expectHardened(res.headers);
  });

  it.each([
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/..%5csecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/%00index.html',
    '/%E0%A4%A',
    '/link.txt',
  ])('refuses traversal: %s', async (path) => {
    const res = await get(fx.server.port, path, { Cookie: cookie });
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('outside the renderer');
  });

  it('serves only GET and HEAD', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: fx.server.port, path: '/', method: 'POST', headers: { Cookie: cookie } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('x');
    });
    expect(status).toBe(405);
  });
});

describe('serve: helpers', () => {
  it('reads one cookie among many', () => {
    expect(readCookie('a=1; b=2;c=3', 'b')).toBe('2');
    expect(readCookie('ab=1', 'b')).toBeUndefined();
    expect(readCookie(undefined, 'b')).toBeUndefined();
  });

  it('tells a built renderer directory from one without index.html', () => {
    expect(rendererIsBuilt(fx.rendererDir)).toBe(true);
    expect(rendererIsBuilt(fx.root)).toBe(false);
  });

  it('compares secrets of any length', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abcd')).toBe(false);
  });
});
