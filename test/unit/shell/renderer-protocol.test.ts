/**
 * The app scheme's handler (electron/shell/renderer-protocol.ts), without Electron: it serves
 * the files of one folder and nothing else, with the CSP as a header.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { staticFileFor as rendererFile } from '../../../electron/serve/static-files.js';
import {
  APP_INDEX_URL,
  APP_ORIGIN,
  handleAppRequest,
  serveRendererPath,
} from '../../../electron/shell/renderer-protocol.js';
import { CONTENT_SECURITY_POLICY } from '../../../shared/csp.js';
import { tempDir } from '../../support/temp-dir.js';

const base = tempDir('egress-app-protocol-');
const root = join(base, 'renderer');
mkdirSync(join(root, 'assets'), { recursive: true });
writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>');
writeFileSync(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
writeFileSync(join(root, 'assets', 'a b.css'), 'body{}');
// Neighbours a path could try to reach: a sibling folder sharing the prefix, and a secret.
mkdirSync(join(base, 'renderer-evil'));
writeFileSync(join(base, 'renderer-evil', 'x.js'), 'evil');
writeFileSync(join(base, 'secret.txt'), 'secret');
symlinkSync(join(base, 'secret.txt'), join(root, 'assets', 'link.txt'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const get = (url: string, method = 'GET') => handleAppRequest(root, { url, method });

describe('the app scheme', () => {
  it('serves index.html (also for /) and the assets with their types and the CSP header', async () => {
    for (const url of [APP_INDEX_URL, `${APP_ORIGIN}/`]) {
      const r = await get(url);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await r.text()).toContain('<title>app</title>');
    }
    const js = await get(`${APP_ORIGIN}/assets/index-abc.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await get(`${APP_ORIGIN}/assets/a%20b.css`)).status).toBe(200);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get(APP_INDEX_URL, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await get(APP_INDEX_URL, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('refuses every path that leaves the folder or names no file in it', async () => {
    const refused = [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets%2f..%2f..%2fsecret.txt',
      '/assets%2F..%2F..%2Fsecret.txt',
      '/assets%5c..%5c..%5csecret.txt',
      '/..%5csecret.txt',
      '/assets\\..\\..\\secret.txt',
      '//etc/passwd',
      '/%2fetc%2fpasswd',
      '/C:/Windows/win.ini',
      '/index.html%00.js',
      '/%E0%A4%A',
      '/../renderer-evil/x.js',
      '/assets/link.txt',
      '/assets',
      '/assets/',
      '/missing.js',
      `/${base}/secret.txt`,
    ];
    for (const path of refused) {
      // Lexically, on the raw path (as a hand-made request could carry it)...
      const direct = await serveRendererPath(root, 'GET', path);
      expect(direct.status, path).toBe(404);
      expect(await direct.text(), path).not.toMatch(/secret|evil/);
      // ...and through a URL, as Electron hands it over.
      const viaUrl = await get(`${APP_ORIGIN}${path}`);
      if (viaUrl.status === 200) expect(await viaUrl.text(), path).toContain('<title>app</title>');
      else expect(viaUrl.status, path).toBe(404);
    }
    expect(rendererFile(root, 'index.html')).toBeUndefined();
    // An absolute file system path in the URL is a path inside the folder, never that file.
    expect(rendererFile(root, `${base}/secret.txt`)).toBe(join(root, base, 'secret.txt'));
  });

  it('serves only its own host and scheme', async () => {
    expect((await get('app://other/index.html')).status).toBe(404);
    expect((await get('file:///index.html')).status).toBe(404);
    expect((await get('http://egress-desk/index.html')).status).toBe(404);
    expect((await get('not a url')).status).toBe(400);
  });
});
