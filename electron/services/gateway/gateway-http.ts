/**
 * What the gateway's listener says and keeps in HTTP terms (issue 40): its access-log entry,
 * the headers that stop at a proxy, and its plain answers.
 */

/** One request, as the access log keeps it: no secret, no path for CONNECT, no query string unless asked. */
export interface GatewayAccessEntry {
  /** ISO 8601, when the request came. */
  at: string;
  /** The client's name (absent when the request was refused before it was known). */
  client?: string;
  source: string;
  method: string;
  /** host:port for CONNECT; the URL without its query string (unless `logQuery`) for plain HTTP. */
  target: string;
  /** The member it left through (its proxy's name and host). */
  member?: string;
  host?: string;
  /** Members tried (more than 1: failover). */
  tries: number;
  /** Bytes from the client towards the target, and back. */
  bytesOut: number;
  bytesIn: number;
  ms: number;
  outcome: 'ok' | 'refused' | 'no-member' | 'failed';
  /** The status the client got, for plain HTTP and refusals. */
  status?: number;
  /** Why it was refused or failed. */
  reason?: string;
}

/** Headers that stop at a proxy: never passed on, either way. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
]);

/** Whether `bind` is a loopback address, where the gateway may be reached by this machine only. */
export function isLoopback(bind: string): boolean {
  return /^127\./.test(bind) || bind === '::1' || bind === 'localhost';
}

/** A plain-text answer on a raw socket (CONNECT's side). */
export function answerPlain(status: number, text: string, body: string): string {
  return `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${body}\n`;
}

/** The 407 that asks for the gateway's credentials, with the reason. */
export function answer407(reason: string): string {
  return `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="egress-desk gateway"\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${reason}\n`;
}
