/**
 * Who is asking the gateway (issue 40): the client named by a request's
 * `Proxy-Authorization: Basic …` (or a SOCKS5 user name and password), checked against the
 * gateway's clients, its source address against the client's allow-list, and what its user
 * name asks for (shared/gateway-user.ts). Every refusal is a 407 with a plain reason that
 * names no password; the password is compared in constant time. An unknown client and a
 * wrong password get the same answer (the gateway does not tell who its clients are), and
 * what is wrong with the rest of a user name is told only once the password was right.
 */
import { timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv6 } from 'node:net';
import type { GatewayClient } from '../../../shared/gateway.js';
import { type GatewayUser, gatewayClientOf, parseGatewayUser } from '../../../shared/gateway-user.js';

export type ClientCheck = { ok: true; client: GatewayClient; user: GatewayUser } | { ok: false; reason: string };

/** The user name and password of a `Basic` Proxy-Authorization header, or undefined when it is not one. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^\s*Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** Equal strings, in time that does not depend on where they differ. */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // Compared at one length so that the length of a wrong guess is not told either.
  return x.length === y.length ? timingSafeEqual(x, y) : (timingSafeEqual(x, x), false);
}

/** One client's allow-list as a BlockList (node:net), built once per client and list. */
const allowLists = new WeakMap<readonly string[], BlockList>();

function allowListOf(allow: readonly string[]): BlockList {
  let list = allowLists.get(allow);
  if (!list) {
    list = new BlockList();
    for (const entry of allow) {
      const [address, prefix] = entry.split('/');
      const family = isIPv6(address!) ? 'ipv6' : 'ipv4';
      if (prefix === undefined) list.addAddress(address!, family);
      else list.addSubnet(address!, Number(prefix), family);
    }
    allowLists.set(allow, list);
  }
  return list;
}

/** Whether `source` (as a socket reports it: IPv4 may come mapped into IPv6) is in `allow`. */
export function sourceAllowed(source: string, allow: readonly string[]): boolean {
  const list = allowListOf(allow);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(source);
  if (mapped) return list.check(mapped[1]!, 'ipv4') || list.check(source, 'ipv6');
  return list.check(source, isIPv6(source) ? 'ipv6' : 'ipv4');
}

/**
 * Checks one request's credentials and source against `clients`. `credentials` undefined:
 * none were sent (a 407 that asks for them).
 */
export function checkClient(
  credentials: { user: string; password: string } | undefined,
  source: string,
  clients: readonly GatewayClient[],
): ClientCheck {
  if (!credentials) return { ok: false, reason: 'the gateway needs a client name and password' };
  const name = gatewayClientOf(
    credentials.user,
    clients.map((c) => c.name),
  );
  const client = name === undefined ? undefined : clients.find((c) => c.name === name);
  // Compared even for an unknown client, so that the answer's time does not tell either.
  const passwordRight = sameSecret(credentials.password, client?.password ?? '');
  if (!client || !passwordRight) return { ok: false, reason: 'unknown gateway client or wrong password' };
  if (client.allow && !sourceAllowed(source, client.allow))
    return { ok: false, reason: `the gateway client "${client.name}" may not connect from ${source}` };
  const parsed = parseGatewayUser(credentials.user, [client.name]);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  return { ok: true, client, user: parsed.user };
}
