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
  for (const line of lines) if (/[\r\n\0]/.test(line)) throw new Error(`the probe's request has a line break in "${line.split(':')[0]}"`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** The conclusion from an answer's status, as for Node's client: 407 is a refused login; with a check URL, 4xx/5xx fail. */
export function judgeStatus(status: number, checkUrl: boolean): PlainAnswer {
  if (status === 407) return { ok: false, status, error: 'the proxy refused the credentials (407)' };
  if (checkUrl && status >= 400) return { ok: false, status, error: `the check URL answered ${status} through the proxy` };
  return { ok: true, status };
}

/**
 * Reads the head of an answer from `stream` (already carrying `request`, or about to): calls
 * `answered` when the headers have ended and `finish` once with the conclusion. Registers
 * the stream's destruction with `cleanup`, so the caller's timeout ends it too.
 */
export function readPlainAnswer(
  stream: Duplex,
  request: string,
  checkUrl: boolean,
  finish: (a: PlainAnswer) => void,
  answered: () => void,
  cleanup: (c: () => void) => void,
): void {
  cleanup(() => stream.destroy());
  let head = '';
  stream.on('data', (chunk: Buffer) => {
    // latin1: one character a byte, so the limit counts bytes and no byte is ever invalid.
    head += chunk.toString('latin1');
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > HEAD_LIMIT) finish({ ok: false, error: `the proxy's answer had no end of headers in ${HEAD_LIMIT / 1024} KiB` });
      return;
    }
    const status = STATUS_LINE.exec(head)?.[1];
    if (!status) return finish({ ok: false, error: `the proxy did not answer HTTP (it sent "${printable(head.slice(0, 40))}")` });
    answered();
    finish(judgeStatus(Number(status), checkUrl));
  });
  stream.on('end', () => finish({ ok: false, error: head ? 'the proxy closed the connection in the middle of its answer' : 'socket hang up: the proxy closed the connection without answering' }));
  stream.on('error', (err: Error) => finish({ ok: false, error: err.message }));
  stream.write(request);
}

/** Control characters shown as `.`, so a binary answer reads as text in an error message. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '.');
}
