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
import { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';
import { contentType, staticFileFor } from '../serve/static-files.js';

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

/**
 * The answer for one request path: the file with its Content-Type and the security headers,
 * 404 for anything {@link staticFileFor} refuses (serve mode's path rules) or that is not a
 * regular file (a directory, a symlink, missing), 405 for anything but GET and HEAD. Files
 * are read whole: the renderer's assets are a few hundred kilobytes, and `readFile` reads
 * from inside an asar archive too.
 */
export async function serveRendererPath(root: string, method: string, pathname: string): Promise<Response> {
  if (method !== 'GET' && method !== 'HEAD') return plain(405, 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
  const file = staticFileFor(root, pathname);
  if (!file) return plain(404, 'not found\n');
  try {
    // lstat, not stat: a symlink (none is ever built) could point out of the folder. Not
    // serve's realpath check: inside app.asar there is nothing to resolve.
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
