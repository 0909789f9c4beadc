/** Address checks shared by schemas (renderer included) and builders. */

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function isIpv6(addr: string): boolean {
  if (!/^[0-9a-fA-F:]+$/.test(addr) || !addr.includes(':')) return false;
  const halves = addr.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (groups.some((g) => g.length === 0 || g.length > 4)) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

/** An IPv4 or IPv6 address, optionally with a prefix length: what tinyproxy's `Allow` takes. */
export function isCidr(value: string): boolean {
  const [addr, prefix, ...rest] = value.split('/');
  if (rest.length > 0 || addr === undefined) return false;
  const v4 = IPV4.test(addr);
  if (!v4 && !isIpv6(addr)) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (v4 ? 32 : 128);
}

/**
 * Clients a proxy accepts when the launch names none: loopback and the private ranges
 * (RFC 1918, RFC 4193), never the whole Internet; BasicAuth is on by default as well.
 */
export const DEFAULT_ALLOW = ['127.0.0.1', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fd00::/8'] as const;
