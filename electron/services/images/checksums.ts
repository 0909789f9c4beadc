/**
 * The publisher's digest of an image, read from the checksum file it publishes beside it:
 * Ubuntu's `SHA256SUMS`, Debian's `SHA512SUMS` (SHA-512 only), Rocky's `CHECKSUM` and
 * `<image>.CHECKSUM`, Fedora's `<release>-CHECKSUM` (found through the directory's index),
 * or any checksum file the person names. The file is read, never trusted blindly: every
 * front end shows what was found and asks before storing it.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ImageCacheError } from './errors.js';
import { type DigestAlgorithm, parseSums } from './sums-parse.js';

export { type DigestAlgorithm, parseSums, type SumsEntry } from './sums-parse.js';

/** A checksum file is a few KiB (a directory index a few hundred); anything larger is not read. */
const MAX_SUMS_BYTES = 1024 * 1024;
/** Checksum files looked for in the image's directory, in this order (SHA-256 first: it needs no download). */
const BESIDE = ['SHA256SUMS', 'CHECKSUM', '{name}.CHECKSUM', 'SHA512SUMS'] as const;
/** At most this many checksum files named by the directory's index are read. */
const MAX_INDEXED = 4;

/** The checksum file could not be read, is not one, or has no (or a conflicting) entry for the image. */
export class PublisherDigestError extends ImageCacheError {
  override readonly name: string = 'PublisherDigestError';
}

/** What a publisher's checksum file says about an image. */
export interface PublishedDigest {
  algorithm: DigestAlgorithm;
  /** Lowercase hexadecimal. */
  digest: string;
  /** The checksum file it was read from. */
  sumsUrl: string;
  /**
   * The name the file lists it under: the URL's file name, or, in a checksum file made for
   * this one image (`<image>.CHECKSUM`), the name it was published as (a "latest" link's target).
   */
  listedName: string;
}

/**
 * The checksum file's signature is BAD: gpgv, with the signer's key, says the file is not
 * what was signed (it was changed after signing). Its digest must not be used.
 */
export class BadSignatureError extends PublisherDigestError {
  override readonly name = 'BadSignatureError';
}

export interface PublisherDigestOptions {
  /** The checksum file to read, instead of looking beside the image. */
  checksumsUrl?: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * Finds the image's digest in the checksum file the publisher has beside `url` (or in
 * `checksumsUrl`). A SHA-256 is preferred when a file lists both.
 */
export async function findPublishedDigest(url: string, options: PublisherDigestOptions = {}): Promise<PublishedDigest> {
  const { found } = await locate(url, options);
  return found;
}

/** A digest found, with the bytes of the checksum file it was read from (what a signature covers). */
export interface LocatedDigest {
  found: PublishedDigest;
  bytes: Buffer;
  /** The image's file name in its URL. */
  name: string;
}

/** {@link findPublishedDigest}, keeping the checksum file's bytes for the signature check. */
export async function locate(url: string, options: PublisherDigestOptions = {}): Promise<LocatedDigest> {
  const image = parseUrl(url);
  const name = decodeURIComponent(image.pathname.slice(image.pathname.lastIndexOf('/') + 1));
  if (name === '') throw new PublisherDigestError(`${url} names a directory, not an image file`);

  if (options.checksumsUrl !== undefined) {
    const sumsUrl = parseUrl(options.checksumsUrl, url).href;
    const text = await readSmall(sumsUrl, options);
    if (text === undefined)
      throw new PublisherDigestError(
        `there is no checksum file at ${sumsUrl}${sumsUrl.startsWith('file:') ? '' : ' (HTTP 404)'}`,
      );
    const found = pick(text.body, sumsUrl, name);
    if (typeof found === 'string') throw new PublisherDigestError(`${sumsUrl} ${found}`);
    return { found, bytes: text.bytes, name };
  }

  const tried: string[] = [];
  const seen = new Set<string>();
  const attempt = async (sumsUrl: string): Promise<LocatedDigest | undefined> => {
    seen.add(sumsUrl);
    const file = sumsUrl.slice(sumsUrl.lastIndexOf('/') + 1);
    let text: { body: string; bytes: Buffer } | undefined;
    try {
      text = await readSmall(sumsUrl, options);
    } catch (err) {
      // Some servers answer 403 for a file that is not there: another candidate may still be.
      if (!(err instanceof PublisherDigestError && err.message.startsWith('HTTP '))) throw err;
      tried.push(`${decodeURIComponent(file)}: ${err.message.replace(/ from \S+$/, '')}`);
      return undefined;
    }
    if (text === undefined) {
      tried.push(`${decodeURIComponent(file)}: not found`);
      return undefined;
    }
    const found = pick(text.body, sumsUrl, name);
    if (typeof found !== 'string') return { found, bytes: text.bytes, name };
    tried.push(`${decodeURIComponent(file)}: ${found.replace(/^is /, '')}`);
    return undefined;
  };
  for (const candidate of BESIDE) {
    const found = await attempt(new URL(encodeURIComponent(candidate.replace('{name}', name)), image).href);
    if (found) return found;
  }
  // Fedora names its checksum file after the release, not the image: the directory's index says which it is.
  for (const sumsUrl of await indexedSums(image, seen, options)) {
    const found = await attempt(sumsUrl);
    if (found) return found;
  }
  throw new PublisherDigestError(`no checksum file beside ${url} lists ${name} (${tried.join('; ')})`);
}

function parseUrl(raw: string, base?: string): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new PublisherDigestError(`${raw} is not a valid URL`);
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw new PublisherDigestError(
      `${raw}: the scheme ${url.protocol.slice(0, -1)} is not supported (use https, http or file)`,
    );
  }
  return url;
}

/**
 * The image's entry in one checksum file, or why there is none ("is not a checksum file…",
 * "has no entry for…"). Two different digests for one name are an error, never a choice.
 */
export function pick(text: string, sumsUrl: string, name: string): PublishedDigest | string {
  const entries = parseSums(text);
  if (entries.length === 0) {
    return 'is not a checksum file: no line holds a SHA-256 or SHA-512 digest in GNU form (`<hex>  <name>`) or BSD form (`SHA256 (<name>) = <hex>`)';
  }
  let matching = entries.filter((e) => e.name === name);
  const file = decodeURIComponent(sumsUrl.slice(sumsUrl.lastIndexOf('/') + 1));
  if (matching.length === 0 && file.startsWith(`${name}.`) && new Set(entries.map((e) => e.name)).size === 1) {
    // A file made for this one image (Rocky's `<image>.CHECKSUM`) may list the dated file a "latest" name links to.
    matching = entries;
  }
  for (const algorithm of ['sha256', 'sha512'] as const) {
    const digests = new Set(matching.filter((e) => e.algorithm === algorithm).map((e) => e.digest));
    if (digests.size > 1)
      throw new PublisherDigestError(
        `${sumsUrl} lists ${name} with ${digests.size} different ${algorithm} digests; it cannot be trusted`,
      );
    const digest = [...digests][0];
    if (digest !== undefined)
      return { algorithm, digest, sumsUrl, listedName: matching.find((e) => e.digest === digest)!.name || name };
  }
  return `has no entry for ${name}`;
}

/** Checksum files the directory's HTML index links to (names ending in CHECKSUM or SUMS), not yet tried. */
async function indexedSums(image: URL, seen: Set<string>, options: PublisherDigestOptions): Promise<string[]> {
  if (image.protocol === 'file:') return [];
  const dir = new URL('./', image);
  const index = await readSmall(dir.href, options).catch(() => undefined);
  if (!index || !/html/i.test(index.type)) return [];
  const out: string[] = [];
  for (const m of index.body.matchAll(/href\s*=\s*"([^"#?]+)"/gi)) {
    let target: URL;
    try {
      target = new URL(m[1]!.replace(/&amp;/g, '&'), dir);
    } catch {
      continue;
    }
    // Only files of this very directory: an index may link anywhere.
    if (target.origin !== dir.origin || new URL('./', target).pathname !== dir.pathname) continue;
    if (!/(CHECKSUM|SUMS)$/.test(target.pathname) || seen.has(target.href) || out.includes(target.href)) continue;
    out.push(target.href);
    if (out.length === MAX_INDEXED) break;
  }
  return out;
}

/**
 * A small file (its bytes, its text and its media type), or undefined when there is none
 * (404, or a missing local file). The bytes are kept: a signature covers them, not the text.
 */
export async function readSmall(
  url: string,
  options: PublisherDigestOptions,
): Promise<{ body: string; bytes: Buffer; type: string } | undefined> {
  if (url.startsWith('file:')) {
    try {
      const bytes = await readFile(fileURLToPath(url));
      if (bytes.length > MAX_SUMS_BYTES) throw new PublisherDigestError(`${url} is too large to be a checksum file`);
      return { body: bytes.toString('utf8'), bytes, type: 'text/plain' };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      if (err instanceof PublisherDigestError) throw err;
      throw new PublisherDigestError(`cannot read ${url}: ${(err as Error).message}`);
    }
  }
  let res: Response;
  try {
    res = await (options.fetch ?? globalThis.fetch)(url, options.signal ? { signal: options.signal } : {});
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    throw new PublisherDigestError(
      `cannot fetch ${url}: ${cause instanceof Error ? cause.message : (err as Error).message}`,
    );
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
  const bytes = Buffer.concat(chunks);
  return { body: bytes.toString('utf8'), bytes, type: res.headers.get('content-type') ?? '' };
}
