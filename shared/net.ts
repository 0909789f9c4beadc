/**
 * Address checks shared by schemas (renderer included) and builders, and how an address is
 * written beside a port. The checks are zod's own (`z.ipv4()`, `z.ipv6()`, `z.cidrv4()`,
 * `z.cidrv6()`): strict, linear in the input, and one definition for every caller.
 */
import { z } from 'zod';

const IPV4 = z.ipv4();
const IPV6 = z.ipv6();
const CIDRV4 = z.cidrv4();
const CIDRV6 = z.cidrv6();

/** A dotted-quad IPv4 address (no leading zeros). */
export function isIpv4(value: string): boolean {
  return IPV4.safeParse(value).success;
}

/** An IPv6 address (`::` shorthand and an embedded IPv4 tail allowed; no zone). */
export function isIpv6(value: string): boolean {
  return IPV6.safeParse(value).success;
}

/** An IPv4 or IPv6 address, optionally with a prefix length: what tinyproxy's `Allow` takes. */
export function isCidr(value: string): boolean {
  return isIpv4(value) || isIpv6(value) || CIDRV4.safeParse(value).success || CIDRV6.safeParse(value).success;
}

/** A host as it goes before `:port` or into a URL: an IPv6 address in brackets, anything else as it is. */
export function bracketHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Clients a proxy accepts when the launch names none: loopback and the private ranges
 * (RFC 1918, RFC 4193), never the whole Internet; BasicAuth is on by default as well.
 */
export const DEFAULT_ALLOW = ['127.0.0.1', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fd00::/8'] as const;
