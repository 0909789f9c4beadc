/**
 * ProxyJump values, read as OpenSSH 9.2's `parse_jump` reads them: hops separated by commas,
 * each `[user@]host[:port]` (`[v6]:port` for an IPv6 address; a bare IPv6 address is refused,
 * as ssh refuses it) or `ssh://[user@]host[:port]`; a `#` starts a comment.
 */
import { parsePort } from './ssh-config-keywords.js';
import { SshConfigError } from './ssh-errors.js';

/** One ProxyJump hop as written. */
export interface JumpSpec {
  host: string;
  user?: string;
  port?: number;
}

/** The value ssh reads from a ProxyJump line's text: up to a `#`, trimmed, after any `=`. */
export function proxyJumpText(rest: string): string {
  const text = rest.replace(/^[ \t\r\n=]+/, '');
  const hash = text.indexOf('#');
  return (hash >= 0 ? text.slice(0, hash) : text).trim();
}

/** Parses a ProxyJump value (`a,b@c:22,ssh://d`); `none` is no hop. Throws {@link SshConfigError} as ssh would refuse it. */
export function parseProxyJump(value: string, services?: ReadonlyMap<string, number>): JumpSpec[] {
  if (value.toLowerCase() === 'none') return [];
  return value.split(',').map((raw) => {
    const hop = parseHop(raw, services);
    if (!hop) throw new SshConfigError(`Invalid ProxyJump "${value}": cannot read the hop "${raw}"`);
    return hop;
  });
}

function parseHop(raw: string, services: ReadonlyMap<string, number> | undefined): JumpSpec | undefined {
  let s = raw;
  let uri = false;
  if (s.startsWith('ssh://')) {
    uri = true;
    s = s.slice('ssh://'.length);
    if (s.endsWith('/')) s = s.slice(0, -1);
    if (s.includes('/')) return undefined;
  }
  let user: string | undefined;
  const at = s.lastIndexOf('@');
  if (at >= 0) {
    user = s.slice(0, at);
    if (user === '') return undefined;
    if (uri) user = decodeURIComponent(user);
    s = s.slice(at + 1);
  }
  // OpenSSH's hpdelim2: `[host]` then `:` or end; else up to the first `:` (or `/`, outside a URI).
  let host: string;
  let portText: string;
  if (s.startsWith('[')) {
    const close = s.indexOf(']');
    if (close < 0) return undefined;
    host = s.slice(1, close);
    const after = s.slice(close + 1);
    if (after !== '' && after[0] !== ':' && (uri || after[0] !== '/')) return undefined;
    portText = after.slice(1);
  } else {
    const delim = uri ? s.indexOf(':') : s.search(/[:/]/);
    host = delim < 0 ? s : s.slice(0, delim);
    portText = delim < 0 ? '' : s.slice(delim + 1);
  }
  if (host === '') return undefined;
  let port: number | undefined;
  if (portText !== '') {
    port = parsePort(portText, services);
    if (port === undefined) return undefined;
  }
  return { host, ...(user !== undefined ? { user } : {}), ...(port !== undefined ? { port } : {}) };
}
