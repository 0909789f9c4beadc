/**
 * Exports built from the fleet: a PAC file and a proxy list. Only proxies that are
 * running and have an address are in them (a stopped proxy in a PAC file would make
 * browsers wait on it).
 */
import type { ProxyRecord } from '../provider/kvm/context.js';
import { candidates } from '../provider/kvm/readiness.js';
import { bracketHost } from '../../../shared/net.js';
import { type ProxyKind, kindOf } from '../../../shared/proxy.js';

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
  const route = [...proxies.map((p) => `${p.kind === 'socks5' ? 'SOCKS5' : 'PROXY'} ${hostPort(p)}`), 'DIRECT'].join('; ');
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
