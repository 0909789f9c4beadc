/**
 * Exports built from the fleet: a PAC file, a proxy list, and the proxies client settings
 * are written for. Only proxies that are
 * running and have an address are in them (a stopped proxy in a PAC file would make
 * browsers wait on it).
 */
import type { ProxyRecord } from '../provider/kvm/context.js';
import { candidates } from '../provider/kvm/readiness.js';
import { bracketHost } from '../../../shared/net.js';
import { type ProxyCredentials, type ProxyKind, kindOf } from '../../../shared/proxy.js';
import type { ClientProxy } from '../../../shared/client-settings.js';

/** A proxy a client can use now: its first address (IPv4 first) and port. */
export interface ReadyProxy {
  name: string;
  address: string;
  port: number;
  kind: ProxyKind;
}

export function readyProxies(proxies: readonly ProxyRecord[]): ReadyProxy[] {
  const ready: ReadyProxy[] = [];
  for (const p of proxies) {
    const address = p.state === 'running' ? candidates(p.addresses)[0] : undefined;
    if (address) ready.push({ name: p.name, address, port: p.port, kind: kindOf(p) });
  }
  return ready;
}

function hostPort(p: ReadyProxy): string {
  return `${bracketHost(p.address)}:${p.port}`;
}

/**
 * A PAC file: local and plain host names go direct; everything else tries the ready
 * proxies in order (`PROXY host:port` for http, `SOCKS5 host:port` for socks5), then goes direct. Plain JavaScript with no PAC helper functions, so
 * it runs (and is tested) anywhere. PAC has no way to carry BasicAuth credentials: the
 * browser asks for them (or the proxies' allow lists admit the clients).
 */
export function buildPac(proxies: readonly ReadyProxy[], generatedAt: Date): string {
  const route = [...proxies.map((p) => `${p.kind === 'socks5' ? 'SOCKS5' : 'PROXY'} ${hostPort(p)}`), 'DIRECT'].join(
    '; ',
  );
  const names = proxies.map((p) => p.name).join(', ') || 'none are running: everything goes direct';
  return [
    `// Egress Desk PAC file, generated ${generatedAt.toISOString()}.`,
    `// Proxies: ${names}.`,
    'function FindProxyForURL(url, host) {',
    '  host = String(host).toLowerCase();',
    "  if (host === 'localhost' || host.indexOf('.') < 0 || /^127\\./.test(host) || host === '::1' || host === '[::1]') {",
    "    return 'DIRECT';",
    '  }',
    `  return ${JSON.stringify(route)};`,
    '}',
    '',
  ].join('\n');
}

/** One URL per line; `url` formats one proxy (with or without credentials). */
export function buildProxyList(proxies: readonly ReadyProxy[], url: (p: ReadyProxy) => string): string {
  return proxies.map((p) => `${url(p)}\n`).join('');
}

/** A name asked for client settings is not a proxy, or has no address to give clients. */
export class ClientSettingsError extends Error {
  override readonly name = 'ClientSettingsError';
}

/**
 * The proxies named, as client settings take them (shared/client-settings.ts), in the
 * order asked; credentials only when `credentials` is given (the person asked for them).
 * Refuses, naming each, a name that is not in the fleet or not running with an address:
 * settings that point nowhere are worse than none.
 */
export async function clientProxies(
  proxies: readonly ProxyRecord[],
  names: readonly string[],
  credentials?: (name: string) => Promise<ProxyCredentials | undefined>,
): Promise<ClientProxy[]> {
  const ready = new Map(readyProxies(proxies).map((p) => [p.name, p]));
  const known = new Set(proxies.map((p) => p.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new ClientSettingsError(`no proxy named ${unknown.join(', ')}`);
  const idle = names.filter((n) => !ready.has(n));
  if (idle.length)
    throw new ClientSettingsError(
      `${idle.join(', ')}: not running with a known address yet, so there is nothing for clients to use (start it, or wait for its address)`,
    );
  return Promise.all(
    [...new Set(names)].map(async (n) => {
      const p = ready.get(n)!;
      const c = credentials ? await credentials(n) : undefined;
      return { name: p.name, kind: p.kind, address: p.address, port: p.port, ...(c ? { credentials: c } : {}) };
    }),
  );
}
