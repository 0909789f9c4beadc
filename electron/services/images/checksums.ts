/**
 * The publisher's digest of an image: read from the `SHA256SUMS` file beside it (same
 * directory), as Ubuntu and most cloud image publishers provide. GNU (`<hex>  <name>`,
 * `<hex> *<name>`) and BSD (`SHA256 (<name>) = <hex>`) lines are both understood.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ImageCacheError } from './errors.js';

/** A checksum file is a few KiB; anything much larger is not one and is not read. */
const MAX_SUMS_BYTES = 1024 * 1024;

/** The checksum file could not be read, or has no entry for the image. */
export class PublisherDigestError extends ImageCacheError {
  override readonly name = 'PublisherDigestError';
}

export interface PublisherDigest {
  sha256: string;
  /** The checksum file the digest was read from. */
  sumsUrl: string;
  /** The file name it is listed under. */
  name: string;
}

export interface PublisherDigestOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** Reads the digest of the image at `url` from the SHA256SUMS beside it. */
export async function fetchPublisherDigest(url: string, options: PublisherDigestOptions = {}): Promise<PublisherDigest> {
  let image: URL;
  try {
    image = new URL(url);
  } catch {
    throw new PublisherDigestError(`${url} is not a valid URL`);
  }
  const name = decodeURIComponent(image.pathname.slice(image.pathname.lastIndexOf('/') + 1));
  if (name === '') throw new PublisherDigestError(`${url} names a directory, not an image file`);
  const sumsUrl = new URL('SHA256SUMS', image).href;
  const text = await readSums(sumsUrl, options);
  if (text === undefined) {
    const sha512 = await readSums(new URL('SHA512SUMS', image).href, options).catch(() => undefined);
    const hint = sha512 !== undefined ? ' (the publisher lists only SHA512SUMS there, as Debian does: take the sha256 from another trusted source)' : '';
    throw new PublisherDigestError(`no SHA256SUMS at ${sumsUrl}${hint}`);
  }
  const digests = new Set(parseSums(text).filter((e) => e.name === name).map((e) => e.sha256));
  if (digests.size === 0) throw new PublisherDigestError(`SHA256SUMS beside ${url} has no entry for ${name}`);
  if (digests.size > 1) throw new PublisherDigestError(`SHA256SUMS beside ${url} lists ${name} with different digests`);
  return { sha256: [...digests][0]!, sumsUrl, name };
}

/** One line of a checksum file. */
export interface SumsEntry {
  sha256: string;
  name: string;
}

/**
 * Parses GNU and BSD style sha256 lines; other lines (comments, PGP armour of a signed
 * file, other algorithms) are skipped. Names lose a leading "./".
 */
export function parseSums(text: string): SumsEntry[] {
  const out: SumsEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    let escaped = false;
    // GNU coreutils prefixes a line with "\" when the name holds a backslash or newline.
    if (line.startsWith('\\')) {
      escaped = true;
      line = line.slice(1);
    }
    let sha: string | undefined;
    let name: string | undefined;
    const gnu = /^([0-9A-Fa-f]{64}) [ *](.+)$/.exec(line);
    const bsd = /^SHA256 ?\((.+)\) ?= ?([0-9A-Fa-f]{64})$/.exec(line);
    if (gnu) [sha, name] = [gnu[1], gnu[2]];
    else if (bsd) [sha, name] = [bsd[2], bsd[1]];
    if (sha === undefined || name === undefined) continue;
    if (escaped) name = name.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
    out.push({ sha256: sha.toLowerCase(), name: name.replace(/^\.\//, '') });
  }
  return out;
}

/** The text of a checksum file, or undefined when there is none (404, or a missing local file). */
async function readSums(url: string, options: PublisherDigestOptions): Promise<string | undefined> {
  if (url.startsWith('file:')) {
    try {
      const text = await readFile(fileURLToPath(url), 'utf8');
      if (text.length > MAX_SUMS_BYTES) throw new PublisherDigestError(`${url} is too large to be a checksum file`);
      return text;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      if (err instanceof PublisherDigestError) throw err;
      throw new PublisherDigestError(`cannot read ${url}: ${(err as Error).message}`);
    }
  }
  let res: Response;
  try {
    res = await (options.fetch ?? globalThis.fetch)(url, options.signal ? { signal: options.signal } : {});
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    throw new PublisherDigestError(`cannot fetch ${url}: ${cause instanceof Error ? cause.message : (err as Error).message}`);
  }
  if (res.status === 404 || res.status === 410) {
    await res.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new PublisherDigestError(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} from ${url}`);
  }
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > MAX_SUMS_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw new PublisherDigestError(`${url} is too large to be a checksum file`);
  }
  // Read with a bound: a missing Content-Length must not let a huge body into memory.
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (;;) {
    if (!reader) break;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_SUMS_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new PublisherDigestError(`${url} is too large to be a checksum file`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
