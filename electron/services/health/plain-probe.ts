/**
 * The plain-HTTP health probe on a bare socket: write one request, read the answer's status
 * line and headers, close. Hand-written rather than Node's HTTP client because the probe
 * needs none of what that client does (agents, keep-alive, body parsing, header objects):
 * at 1,000 proxies every 30 s the client's own work was the largest part of the watched
 * backend's CPU profile after the system calls themselves (docs/performance.md, bench (m)).
 * Used for the cases whose answer ends at its headers: the proxy itself (`GET /`) and an
 * http:// check URL. An echo URL (a body to read, perhaps chunked) and https (a CONNECT
 * tunnel) still go through Node's client, which does those properly.
 */
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

/** A status line and headers longer than this are not a proxy's answer to a probe. */
const HEAD_LIMIT = 16 * 1024;
const STATUS_LINE = /^HTTP\/\d(?:\.\d)? (\d{3})(?: |\r|$)/;

/** What a probe concludes, without its latency (the caller times it). */
export interface PlainAnswer {
  ok: boolean;
  status?: number;
  error?: string;
}

/**
 * The request text: a request line and headers, each checked for line breaks (a header
 * value with CR or LF would let a value write a second header; Node's client refuses those
 * too). Names and values come from a parsed URL, an address and base64 credentials, so a
 * refusal here means a bug upstream, said plainly rather than sent.
 */
export function plainRequest(path: string, headers: Readonly<Record<string, string>>): string {
  const lines = [`GET ${path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  for (const line of lines)
    if (/[\r\n\0]/.test(line)) throw new Error(`the probe's request has a line break in "${line.split(':')[0]}"`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** The conclusion from an answer's status, as for Node's client: 407 is a refused login; with a check URL, 4xx/5xx fail. */
export function judgeStatus(status: number, checkUrl: boolean): PlainAnswer {
  if (status === 407) return { ok: false, status, error: 'the proxy refused the credentials (407)' };
  if (checkUrl && status >= 400)
    return { ok: false, status, error: `the check URL answered ${status} through the proxy` };
  return { ok: true, status };
}

/** What reading an answer's head needs from the probe: its conclusion, the moment the head ended, and what to close at the end. */
export interface PlainProbeHooks {
  finish: (a: PlainAnswer) => void;
  answered: () => void;
  cleanup: (c: () => void) => void;
}

/** Takes the answer's bytes as they come and concludes once its head has ended (or cannot be one). */
function headReader(checkUrl: boolean, hooks: PlainProbeHooks): { push(bytes: string): void; ended(): void } {
  let head = '';
  return {
    push(bytes) {
      head += bytes;
      if (head.indexOf('\r\n\r\n') < 0) {
        if (head.length > HEAD_LIMIT)
          hooks.finish({ ok: false, error: `the proxy's answer had no end of headers in ${HEAD_LIMIT / 1024} KiB` });
        return;
      }
      const status = STATUS_LINE.exec(head)?.[1];
      if (!status)
        return hooks.finish({
          ok: false,
          error: `the proxy did not answer HTTP (it sent "${printable(head.slice(0, 40))}")`,
        });
      hooks.answered();
      hooks.finish(judgeStatus(Number(status), checkUrl));
    },
    ended() {
      hooks.finish({
        ok: false,
        error: head
          ? 'the proxy closed the connection in the middle of its answer'
          : 'socket hang up: the proxy closed the connection without answering',
      });
    },
  };
}

/**
 * Reads the head of an answer from `stream` (a tunnel through the proxy's host) after
 * writing `request`. Registers the stream's destruction with `cleanup`, so the caller's
 * timeout ends it too.
 */
export function readPlainAnswer(stream: Duplex, request: string, checkUrl: boolean, hooks: PlainProbeHooks): void {
  hooks.cleanup(() => stream.destroy());
  const reader = headReader(checkUrl, hooks);
  // latin1: one character a byte, so the limit counts bytes and no byte is ever invalid.
  stream.on('data', (chunk: Buffer) => reader.push(chunk.toString('latin1')));
  stream.on('end', () => reader.ended());
  stream.on('error', (err: Error) => hooks.finish({ ok: false, error: err.message }));
  stream.write(request);
}

/**
 * One buffer that every direct probe's socket reads into (`onread`): its bytes are turned
 * into text in the callback, before the event loop reads the next socket, so one is enough.
 * Without it each read allocates a buffer and goes through the stream's 'data' machinery,
 * about a third of a probe's CPU in a loop of 1,000 (measured with bench (m)'s listeners).
 */
const READ_BUFFER = Buffer.alloc(HEAD_LIMIT);

/** Connects to `address`:`port` from here, writes `request` and reads the answer's head. */
export function probePlainDirect(
  address: string,
  port: number,
  request: string,
  checkUrl: boolean,
  hooks: PlainProbeHooks,
): void {
  const reader = headReader(checkUrl, hooks);
  const socket = connect({
    host: address,
    port,
    onread: {
      buffer: READ_BUFFER,
      callback: (n: number, buffer: Uint8Array) => {
        reader.push(Buffer.from(buffer.buffer, buffer.byteOffset, n).toString('latin1'));
        return true;
      },
    },
  });
  hooks.cleanup(() => socket.destroy());
  socket.on('end', () => reader.ended());
  socket.on('error', (err: Error) => hooks.finish({ ok: false, error: err.message }));
  socket.write(request);
}

/** Control characters shown as `.`, so a binary answer reads as text in an error message. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '.');
}
