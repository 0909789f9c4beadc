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

/**
 * The file a URL path names inside `root`, or undefined (not found, a directory, or
 * outside). `/` is `index.html`. `root` must be absolute.
 */
export async function resolveStatic(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined; // malformed percent-encoding
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const relative = decoded === '/' ? 'index.html' : `.${decoded}`;
  const candidate = resolve(root, relative);
  if (!inside(resolve(root), candidate)) return undefined;
  try {
    // Symlinks are followed only to files that are themselves inside the real root.
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(candidate)]);
    if (!inside(realRoot, realFile)) return undefined;
    return (await stat(realFile)).isFile() ? realFile : undefined;
  } catch {
    return undefined;
  }
}
