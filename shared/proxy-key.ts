/**
 * A proxy's key: its host entry and its libvirt domain name, `host/domain`. Stores, caches
 * and the backend's records of what they have seen index proxies by it, because a name alone
 * is not unique (a replacement shares its name with the proxy it replaces, and two host
 * entries can list the same hypervisor). The string is what it always was; the brand only
 * makes sure a key is built here and not by hand.
 */
import { z } from 'zod';

/**
 * The parts of a well-formed key: a host (never empty, never containing "/") and a domain
 * (never empty; libvirt refuses "/" in a domain name, so a second "/" is malformed too).
 */
const KEY = /^([^/]+)\/([^/]+)$/;

/** A `host/domain` key, checked; the type of every key {@link proxyKey} builds. */
export const ProxyKeySchema = z.string().regex(KEY, 'must be HOST/DOMAIN').brand<'ProxyKey'>();
export type ProxyKey = z.infer<typeof ProxyKeySchema>;

/**
 * The key of the proxy `domain` on `host`. Total on purpose: a removal whose host is not
 * known (an app delete of a proxy this backend never saw) still gets a key, one that matches
 * nothing, as it did before keys had a type.
 */
export function proxyKey(host: string, domain: string): ProxyKey {
  return `${host}/${domain}` as ProxyKey;
}

/** The key of a proxy record (`id` is its domain name). */
export function recordKey(record: { host: string; id: string }): ProxyKey {
  return proxyKey(record.host, record.id);
}

/** The host and domain of a key, or undefined when `key` is not one {@link proxyKey} builds from a host and a domain. */
export function parseProxyKey(key: string): { host: string; domain: string } | undefined {
  const m = KEY.exec(key);
  return m ? { host: m[1]!, domain: m[2]! } : undefined;
}
