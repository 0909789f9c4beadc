/**
 * The built renderer as files: a URL path maps to a file inside the renderer directory or
 * to nothing. No directory listings, no way out of the directory (`..`, encoded slashes,
 * NUL bytes, symlinks pointing elsewhere).
 */
import { existsSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build` puts the renderer, seen from the compiled `dist/electron/serve/`. */
export const BUILT_RENDERER_DIR = fileURLToPath(new URL('../../renderer/', import.meta.url));

/** Whether a renderer directory holds a build (its index.html). */
export function rendererIsBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The Content-Type of a file, by extension; unknown kinds are opaque bytes (and nosniff keeps them so). */
export function contentType(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/** Percent-encoded separators and NUL: a path that needs them is never one of ours. */
const ENCODED_SEPARATOR = /%(2f|5c|00)/i;

/**
 * The file a URL path (still percent-encoded, as in `URL.pathname`) names inside `root`, or
 * undefined, judged on the path's text alone: no `.`/`..` segment, no encoded slash or
 * backslash, no NUL, no backslash, no drive letter or colon, nothing that resolves outside
 * `root`. `/` is `index.html`. Both the serve mode's files ({@link resolveStatic}) and the
 * Electron window's app scheme (electron/shell/renderer-protocol.ts) start here.
 */
export function staticFileFor(root: string, pathname: string): string | undefined {
  if (!pathname.startsWith('/') || ENCODED_SEPARATOR.test(pathname) || pathname.includes('\\')) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined; // malformed percent-encoding
  }
  if (decoded === '/') decoded = '/index.html';
  const segments = decoded.slice(1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes(':') || s.includes('\0')))
    return undefined;
  const base = resolve(root);
  const file = resolve(base, ...segments);
  return inside(base, file) && file !== base ? file : undefined;
}

/**
 * The file a URL path names inside `root`, or undefined (not found, a directory, or
 * outside). `root` must be absolute. {@link staticFileFor}, then symlinks followed only to
 * files that are themselves inside the real root.
 */
export async function resolveStatic(root: string, urlPath: string): Promise<string | undefined> {
  const candidate = staticFileFor(root, urlPath);
  if (!candidate) return undefined;
  try {
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(candidate)]);
    if (!inside(realRoot, realFile)) return undefined;
    return (await stat(realFile)).isFile() ? realFile : undefined;
  } catch {
    return undefined;
  }
}
