/**
 * The gateway's user-name grammar (issue 40): how a client says which member of the fleet
 * its request should leave from. Clients cannot send headers on `CONNECT` reliably, but
 * every client can send a user name, so the choice travels in it, as the commercial proxy
 * networks do it:
 *
 *     NAME                       the next healthy member
 *     NAME-session-ID            the same member for the same ID while it is healthy
 *     NAME-label-KEY=VALUE       only members with that label (repeatable: all must match)
 *     NAME-host-HOST             only members on that host
 *
 * and any combination of the parts after NAME, each part once (labels excepted). NAME is
 * one of the gateway's clients; it may hold `-` itself, so the longest client name the
 * user name starts with (followed by its end or `-`) is the client. A part's value runs to
 * the next `-session-`, `-label-` or `-host-` or the end, so no client name or value may
 * hold one of those (client names are refused when they are made; values cannot). Anything
 * else is refused with a plain reason, never ignored: a client that mistyped `-sesion-`
 * must not silently lose its stickiness.
 *
 * Pure: the gateway (electron/services/gateway/) parses with it, the Gateway view and the
 * docs build user names with {@link formatGatewayUser}.
 */
import { LABEL_KEY, LABEL_VALUE } from './fleet-meta.js';

/** The words that start a part, as they stand between two `-`. */
export const GATEWAY_USER_PARTS = ['session', 'label', 'host'] as const;
export type GatewayUserPart = (typeof GATEWAY_USER_PARTS)[number];

/** A gateway client's name: a lowercase letter, then lowercase letters, digits and `-`; none of the part markers. */
export const GATEWAY_CLIENT_NAME = /^[a-z][a-z0-9-]{0,31}$/;
/** A session ID: letters, digits, `_` and `.`, 1-64 (a `-` would read as the start of a part). */
export const GATEWAY_SESSION_ID = /^[A-Za-z0-9_.]{1,64}$/;
/** A host's name in the config: a lowercase DNS label. */
const HOST_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

const MARKER = /-(session|label|host)-/g;

/** What a user name asks for. */
export interface GatewayUser {
  /** The gateway client it names. */
  client: string;
  /** Sticky: the same member for the same ID (per client and selection). */
  session?: string;
  /** Only members carrying every one of these labels. */
  labels: Record<string, string>;
  /** Only members on this host. */
  host?: string;
}

export type GatewayUserParse = { ok: true; user: GatewayUser } | { ok: false; reason: string };

/** Why `name` cannot be a gateway client's name, or undefined when it can. */
export function gatewayClientNameProblem(name: string): string | undefined {
  if (!GATEWAY_CLIENT_NAME.test(name))
    return `a client name must be 1-32 characters: a lowercase letter, then lowercase letters, digits or "-" (got "${name}")`;
  if (name.endsWith('-')) return `a client name cannot end with "-" (got "${name}")`;
  for (const part of GATEWAY_USER_PARTS)
    if (`${name}-`.includes(`-${part}-`))
      return `a client name cannot hold "-${part}-": it would read as a part of the user name (got "${name}")`;
  return undefined;
}

/**
 * Parses `userName` against the gateway's `clients` (their names). The longest client name
 * that the user name starts with, followed by its end or `-`, is the client; the rest must
 * be parts. Every refusal says what was wrong, in words a client's log can show.
 */
export function parseGatewayUser(userName: string, clients: Iterable<string>): GatewayUserParse {
  const client = gatewayClientOf(userName, clients);
  if (!client) return { ok: false, reason: `no gateway client is called "${head(userName)}"` };
  const rest = userName.slice(client.length);
  const user: GatewayUser = { client, labels: {} };
  if (rest === '') return { ok: true, user };
  const marks = [...rest.matchAll(MARKER)];
  if (marks[0]?.index !== 0)
    return {
      ok: false,
      reason: `unknown part "${rest.slice(1)}" after the client name "${client}" (parts: ${GATEWAY_USER_PARTS.map((p) => `-${p}-`).join(', ')})`,
    };
  for (let i = 0; i < marks.length; i++) {
    const mark = marks[i]!;
    const part = mark[1] as GatewayUserPart;
    const start = mark.index + mark[0].length;
    const value = rest.slice(start, marks[i + 1]?.index ?? rest.length);
    const problem = takePart(user, part, value);
    if (problem) return { ok: false, reason: problem };
  }
  return { ok: true, user };
}

/** The client a user name names: the longest of `clients` it starts with, followed by its end or `-`. */
export function gatewayClientOf(userName: string, clients: Iterable<string>): string | undefined {
  let client: string | undefined;
  for (const c of clients)
    if ((userName === c || userName.startsWith(`${c}-`)) && (!client || c.length > client.length)) client = c;
  return client;
}

/** Puts one part into `user`; answers what is wrong with it, if anything. */
function takePart(user: GatewayUser, part: GatewayUserPart, value: string): string | undefined {
  switch (part) {
    case 'session':
      if (user.session !== undefined) return 'a session may be named once';
      if (!GATEWAY_SESSION_ID.test(value))
        return `a session ID must be 1-64 letters, digits, "_" or "." (got "${value}")`;
      user.session = value;
      return undefined;
    case 'host':
      if (user.host !== undefined) return 'a host may be named once';
      if (!HOST_NAME.test(value)) return `a host must be a host's name in the config (got "${value}")`;
      user.host = value;
      return undefined;
    case 'label': {
      const eq = value.indexOf('=');
      const key = eq < 0 ? value : value.slice(0, eq);
      const v = eq < 0 ? '' : value.slice(eq + 1);
      if (eq < 0 || !LABEL_KEY.test(key) || !LABEL_VALUE.test(v))
        return `a label part must be KEY=VALUE with a label's key and value (got "${value}")`;
      if (key in user.labels && user.labels[key] !== v)
        return `the label ${key} is asked for twice with different values ("${user.labels[key]}", "${v}")`;
      user.labels[key] = v;
      return undefined;
    }
  }
}

/**
 * The user name that asks for `user`: the client, its session, its labels (sorted by key)
 * and its host. Parsing it gives `user` back (for values the patterns above allow).
 */
export function formatGatewayUser(user: GatewayUser): string {
  let out = user.client;
  if (user.session !== undefined) out += `-session-${user.session}`;
  for (const key of Object.keys(user.labels).sort()) out += `-label-${key}=${user.labels[key]}`;
  if (user.host !== undefined) out += `-host-${user.host}`;
  return out;
}

/** The first 64 characters of a user name, for a message (no more of what a client sent goes into a log). */
function head(userName: string): string {
  return userName.length > 64 ? `${userName.slice(0, 64)}…` : userName;
}
