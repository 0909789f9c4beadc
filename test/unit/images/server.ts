/**
 * A real HTTP server on 127.0.0.1 for the image cache tests, with the misbehaviours that
 * downloads meet in the wild: dropped connections, stalls, ignored Range headers,
 * changed files, error statuses. Files may be generated on the fly (large ones).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedFile {
  size: number;
  /** The bytes at [offset, offset + length). */
  read: (offset: number, length: number) => Buffer;
  etag?: string;
  lastModified?: string;
  /** Content-Type answered (application/octet-stream unless set). */
  contentType?: string;
}

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  status: number;
}

/** A file served from memory. */
export function bufferFile(
  data: Buffer,
  etag = `"${createHash('sha1').update(data).digest('hex').slice(0, 16)}"`,
): ServedFile {
  return {
    size: data.length,
    read: (o, n) => data.subarray(o, o + n),
    etag,
    lastModified: 'Tue, 01 Oct 2024 10:00:00 GMT',
  };
}

/** Longest read the server makes at once (see handle). */
const SERVER_CHUNK = 256 * 1024;

/**
 * Deterministic bytes of any size, without holding them: a pattern whose period is not
 * a power of two repeats, and every read is a view into one static buffer, so the server
 * itself allocates nothing per request (memory tests measure the client only).
 */
export function generatedFile(size: number): { file: ServedFile; sha256: string } {
  const period = 1024 * 1024 + 4099;
  const pattern = Buffer.alloc(period + SERVER_CHUNK);
  for (let i = 0; i < pattern.length; i++) pattern[i] = (Math.imul(i % period, 2654435761) >>> 13) & 0xff;
  const read = (offset: number, length: number): Buffer => {
    const n = Math.max(0, Math.min(length, size - offset));
    if (n > SERVER_CHUNK)
      return Buffer.concat([read(offset, SERVER_CHUNK), read(offset + SERVER_CHUNK, n - SERVER_CHUNK)]);
    const at = offset % period;
    return pattern.subarray(at, at + n);
  };
  const hash = createHash('sha256');
  for (let at = 0; at < size; at += SERVER_CHUNK) hash.update(read(at, SERVER_CHUNK));
  return { file: { size, read, etag: '"generated"' }, sha256: hash.digest('hex') };
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export class TestServer {
  readonly files = new Map<string, ServedFile>();
  readonly requests: RecordedRequest[] = [];
  /** Close the connection (gracefully, FIN) after this many body bytes of the next response. */
  dropAfter?: number | undefined;
  /** Stop sending (connection left open) after this many body bytes of the next response. */
  stallAfter?: number | undefined;
  /** Answer every request with the whole file (200), as servers without range support do. */
  ignoreRange = false;
  /** Status answered for a path instead of the file. */
  readonly statusFor = new Map<string, number>();
  /** Delay before the response headers, in ms. */
  headerDelayMs = 0;
  private server?: Server;
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req.url ?? '/', req.headers, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Requests made for `path`. */
  requestsFor(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(path: string, headers: IncomingHttpHeaders, res: ServerResponse): Promise<void> {
    const record = (status: number) => this.requests.push({ path, headers, status });
    if (this.headerDelayMs) await new Promise((r) => setTimeout(r, this.headerDelayMs));
    const forced = this.statusFor.get(path);
    const file = this.files.get(path);
    if (forced !== undefined || !file) {
      const status = forced ?? 404;
      record(status);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}\n`);
      return;
    }
    let start = 0;
    let status = 200;
    const range = /^bytes=(\d+)-$/.exec(headers.range ?? '');
    const ifRange = headers['if-range'];
    const fresh = ifRange === undefined || ifRange === file.etag || ifRange === file.lastModified;
    if (range && !this.ignoreRange && fresh) {
      start = Number(range[1]);
      if (start >= file.size) {
        record(416);
        res.writeHead(416, { 'content-range': `bytes */${file.size}` }).end();
        return;
      }
      status = 206;
    }
    record(status);
    const out: Record<string, string | number> = {
      'content-length': file.size - start,
      'accept-ranges': 'bytes',
      'content-type': file.contentType ?? 'application/octet-stream',
    };
    if (file.etag) out.etag = file.etag;
    if (file.lastModified) out['last-modified'] = file.lastModified;
    if (status === 206) out['content-range'] = `bytes ${start}-${file.size - 1}/${file.size}`;
    res.writeHead(status, out);

    const drop = this.dropAfter;
    const stall = this.stallAfter;
    this.dropAfter = undefined;
    this.stallAfter = undefined;
    const cut = drop ?? stall;
    const end = cut !== undefined ? Math.min(file.size, start + cut) : file.size;
    let at = start;
    const chunk = SERVER_CHUNK;
    while (at < end) {
      const n = Math.min(chunk, end - at);
      const ok = res.write(file.read(at, n));
      at += n;
      if (!ok) await new Promise((r) => res.once('drain', r));
      if (res.destroyed) return;
    }
    if (drop !== undefined) {
      // Let the bytes reach the client and be read, then close: a connection lost mid-body.
      // (fetch discards body bytes still queued when the connection fails, so an
      // immediate close would make the partial's size depend on timing. 100 ms was not
      // enough on a loaded 2-core machine: a CI run read 0 B of the 30,000 sent before the
      // close; a second leaves the client's child process time to be scheduled.)
      res.write('', () => setTimeout(() => res.socket?.end(), 1000));
      return;
    }
    if (stall !== undefined) return; // Keep the connection open, send nothing more.
    res.end();
  }
}
