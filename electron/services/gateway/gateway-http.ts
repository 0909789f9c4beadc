/**
 * What the gateway's listeners say and keep in HTTP terms (issue 40): its access-log entry,
 * the headers that stop at a proxy, its plain answers, and how a listener starts.
 */
import type { AddressInfo, Server } from 'node:net';

import type { GatewayAccessEntry } from '../../../shared/gateway.js';

export type { GatewayAccessEntry };

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

/**
 * Listens on `bind` and `port` (0: any free one), refusing anywhere but loopback when
 * `clients` is none: an open gateway would be a door into the fleet for anyone who can
 * reach this machine. Both listeners (HTTP and SOCKS5) start here.
 */
export async function listenGuarded(
  server: Server,
  port: number,
  bind: string,
  clients: () => Promise<readonly unknown[]>,
): Promise<{ address: string; port: number }> {
  if (!isLoopback(bind) && (await clients()).length === 0)
    throw new Error(
      `the gateway listens on ${bind} only with client credentials (none are set): add a client first (egress-desk gateway clients add NAME)`,
    );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bind, () => (server.off('error', reject), resolve()));
  });
  const a = server.address() as AddressInfo;
  return { address: a.address, port: a.port };
}

/** The fields of an entry for a request that relayed nothing (refused, or no member took it). */
export function nothingRelayed(
  outcome: GatewayAccessEntry['outcome'],
  reason: string,
  more: { tries?: number; status?: number } = {},
): Pick<GatewayAccessEntry, 'tries' | 'bytesIn' | 'bytesOut' | 'outcome' | 'reason' | 'status'> {
  return {
    tries: more.tries ?? 0,
    bytesIn: 0,
    bytesOut: 0,
    outcome,
    reason,
    ...(more.status !== undefined ? { status: more.status } : {}),
  };
}
