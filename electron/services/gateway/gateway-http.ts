/**
 * What the gateway's listener says and keeps in HTTP terms (issue 40): its access-log entry,
 * the headers that stop at a proxy, and its plain answers.
 */

export type { GatewayAccessEntry } from '../../../shared/gateway.js';

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
