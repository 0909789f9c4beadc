/**
 * The app's own scheme: how the Electron window loads the built renderer.
 *
 * Why not `file://`: the packaged app turns the GrantFileProtocolExtraPrivileges fuse off
 * (build/electron-builder.yml), as Electron's security checklist advises, and a `file://`
 * page then gets no more than a browser gives it: its origin is `null`, so the module script
 * and stylesheet that Vite emits with `crossorigin` are refused by CORS and the window stays
 * blank (test/browser/app-protocol.test.ts shows both). A privileged standard scheme gives
 * the page a real origin (`app://egress-desk`), a secure context (the Clipboard API needs
 * one) and `'self'` for the CSP.
 *
 * This module is plain Node (no Electron import), so that the browser lane can serve the
 * built renderer to Chromium through exactly this handler; electron/shell/app.ts registers
 * it with `protocol.handle`.
 */
import { lstat, readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';
import { contentType } from '../serve/static-files.js';

/** The scheme registered as privileged before the app is ready. */
export const APP_SCHEME = 'app';
/** The one host the scheme serves; any other is not found. */
export const APP_HOST = 'egress-desk';
/** The window's origin: the only one granted anything (see security.ts). */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** What the window loads. */
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

/**
 * The scheme's privileges (`protocol.registerSchemesAsPrivileged`): standard (a real origin,
 * relative URLs, `'self'`), secure (a secure context), fetch and the V8 code cache. Not
 * `bypassCSP` (the CSP must hold), not `corsEnabled` (the page needs no cross-origin reads:
 * every asset is same-origin), no service workers.
 */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true, codeCache: true } as const;

/** Headers on every answer of the scheme, errors included: the CSP as a header, as well as the page's meta tag. */
const HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function plain(status: number, text: string, extra: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { ...HEADERS, 'Content-Type': 'text/plain; charset=utf-8', ...extra } });
}

/** Percent-encoded separators and NUL: a path that needs them is never one of ours. */
const ENCODED_SEPARATOR = /%(2f|5c|00)/i;

/**
 * The file a URL path (still percent-encoded, as in `URL.pathname`) names inside `root`, or
 * undefined. Checked lexically: no `.`/`..` segment, no encoded slash or backslash, no NUL,
 * no backslash, no drive letter or colon, nothing that resolves outside `root`. `/` is
 * `index.html`. Symlinks are refused when the file is read (see {@link serveRendererPath}).
 */
export function rendererFile(root: string, pathname: string): string | undefined {
  if (!pathname.startsWith('/') || ENCODED_SEPARATOR.test(pathname) || pathname.includes('\\')) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined; // malformed percent-encoding
  }
  if (decoded === '/') decoded = '/index.html';
  const segments = decoded.slice(1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes(':') || s.includes('\0'))) return undefined;
  const base = resolve(root);
  const file = resolve(base, ...segments);
  return file.startsWith(base + sep) ? file : undefined;
}

/**
 * The answer for one request path: the file with its Content-Type and the security headers,
 * 404 for anything {@link rendererFile} refuses or that is not a regular file (a directory,
 * a symlink, missing), 405 for anything but GET and HEAD. Files are read whole: the renderer's
 * assets are a few hundred kilobytes, and `readFile` reads from inside an asar archive too.
 */
export async function serveRendererPath(root: string, method: string, pathname: string): Promise<Response> {
  if (method !== 'GET' && method !== 'HEAD') return plain(405, 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
  const file = rendererFile(root, pathname);
  if (!file) return plain(404, 'not found\n');
  try {
    // lstat, not stat: a symlink (none is ever built) could point out of the folder.
    if (!(await lstat(file)).isFile()) return plain(404, 'not found\n');
    const body = method === 'HEAD' ? null : await readFile(file);
    return new Response(body, { status: 200, headers: { ...HEADERS, 'Content-Type': contentType(file) } });
  } catch {
    return plain(404, 'not found\n');
  }
}

/**
 * The `protocol.handle` handler for {@link APP_SCHEME}: requests for `app://egress-desk/…`
 * are served from `root`; any other host is not found.
 */
export async function handleAppRequest(root: string, request: { url: string; method: string }): Promise<Response> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return plain(400, 'bad URL\n');
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return plain(404, 'not found\n');
  return serveRendererPath(root, request.method, url.pathname);
}
