/**
 * A proxy's URL as clients take it: `http://user:pass@address:port` or
 * `socks5://user:pass@address:port`. Shared by the CLI, the exports and the renderer's
 * client settings, so every place writes the same text.
 */
import { bracketHost } from './net.js';
import { type ProxyCredentials, type ProxyKind, proxyScheme } from './proxy.js';

/**
 * The URL of a proxy at `address:port`; credentials (percent-encoded) only when given,
 * IPv6 addresses bracketed. `kind` absent = http.
 */
export function formatProxyUrl(
  address: string,
  port: number,
  credentials?: ProxyCredentials,
  kind: ProxyKind = 'http',
): string {
  const auth = credentials
    ? `${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@`
    : '';
  return `${proxyScheme(kind)}://${auth}${bracketHost(address)}:${port}`;
}
