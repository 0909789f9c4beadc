/**
 * Relaying one open tunnel (issue 40): the client's bytes to the member and back until
 * either side closes, counted each way, the member's open connections kept for least
 * connections, and one access-log entry at the end. The HTTP listener's `CONNECT` and the
 * SOCKS5 listener both end here.
 */
import type { Duplex } from 'node:stream';
import type { GatewayCounters } from './gateway-counters.js';
import type { GatewayAccessEntry } from './gateway-http.js';
import type { MemberChooser } from './member-choice.js';
import type { GatewayMember } from './member-choice.js';
import type { Tunnel } from './upstream.js';
import { sinkInto } from './member-socket.js';

/** What the server lends a relay. */
export interface RelayParts {
  chooser: MemberChooser;
  counters: GatewayCounters;
  log: (entry: GatewayAccessEntry) => void;
  now: () => number;
}

/** The entry's fields known before the relay: when, who, from where, what, and the tries it took. */
export type RelayEntry = Pick<GatewayAccessEntry, 'at' | 'source' | 'method' | 'target' | 'tries' | 'reason'> & {
  client: string;
};

/**
 * Pipes `client` and the tunnel both ways (`head`: what the client sent after its request,
 * the tunnel's own head: what the member sent after its answer) until either closes.
 */
export function relayTunnel(
  parts: RelayParts,
  client: Duplex,
  got: { member: GatewayMember; value: Tunnel },
  entry: RelayEntry,
  started: number,
  head: Buffer,
): void {
  const { member, value } = got;
  const upstream = value.stream;
  parts.chooser.opened(member.key);
  let bytesOut = head.length;
  let bytesIn = value.head.length;
  if (value.head.length) client.write(value.head);
  if (head.length) upstream.write(head);
  client.on('data', (c: Buffer) => (bytesOut += c.length));
  client.on('error', () => client.destroy());
  upstream.on('error', () => upstream.destroy());
  client.pipe(upstream);
  // Downloads, the heavy direction, straight from the member socket's own buffer where it has one (member-socket.ts).
  if (!sinkInto(upstream, client, (n) => (bytesIn += n))) {
    upstream.on('data', (c: Buffer) => (bytesIn += c.length));
    upstream.pipe(client);
  }
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    client.destroy();
    upstream.destroy();
    parts.chooser.closed(member.key);
    parts.counters.relayed(member.key, entry.client, bytesOut, bytesIn);
    parts.log({
      ...entry,
      member: member.name,
      host: member.host,
      bytesIn,
      bytesOut,
      ms: parts.now() - started,
      outcome: 'ok',
    });
  };
  client.once('close', end);
  upstream.once('close', end);
}
