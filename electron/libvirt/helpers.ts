/**
 * High-level helpers over the typed calls: the questions later code asks ("all domains",
 * "this domain or null", "libvirt version as text", "our metadata element or null"),
 * each answered with as few round trips as possible.
 */
import { DomainStatsType, MetadataType } from './constants.js';
import { ErrorCode, LibvirtError, isNotFound } from './errors.js';
import type { Caller } from './procedures.js';
import {
  type DhcpLease,
  type DomainInterface,
  type DomainRef,
  type NetworkRef,
  type StoragePoolRef,
  type StorageVolRef,
  typedParamsToRecord,
} from './types.js';

/** Formats libvirt's packed version number (major·10⁶ + minor·10³ + micro) as `major.minor.micro`. */
export function formatVersion(packed: bigint | number): string {
  const n = BigInt(packed);
  return `${n / 1_000_000n}.${(n / 1_000n) % 1_000n}.${n % 1_000n}`;
}

/** The hypervisor's version, e.g. `7.2.0` for QEMU 7.2 (CONNECT_GET_VERSION). */
export async function getVersion(client: Caller): Promise<string> {
  return formatVersion(await client.call('CONNECT_GET_VERSION'));
}

/** The daemon's libvirt version, e.g. `9.0.0` (CONNECT_GET_LIB_VERSION). */
export async function getLibVersion(client: Caller): Promise<string> {
  return formatVersion(await client.call('CONNECT_GET_LIB_VERSION'));
}

/** Every domain matching `flags` (ListDomains.*; 0 = all) in one call. */
export async function listAllDomains(client: Caller, flags = 0): Promise<DomainRef[]> {
  return (await client.call('CONNECT_LIST_ALL_DOMAINS', { needResults: 1, flags })).domains;
}

/** Every storage pool matching `flags` (ListPoolsOrNetworks.*). */
export async function listAllStoragePools(client: Caller, flags = 0): Promise<StoragePoolRef[]> {
  return (await client.call('CONNECT_LIST_ALL_STORAGE_POOLS', { needResults: 1, flags })).pools;
}

/** Every volume in `pool`. */
export async function listAllVolumes(client: Caller, pool: StoragePoolRef): Promise<StorageVolRef[]> {
  return (await client.call('STORAGE_POOL_LIST_ALL_VOLUMES', { pool, needResults: 1, flags: 0 })).vols;
}

/** Every network matching `flags` (ListPoolsOrNetworks.*). */
export async function listAllNetworks(client: Caller, flags = 0): Promise<NetworkRef[]> {
  return (await client.call('CONNECT_LIST_ALL_NETWORKS', { needResults: 1, flags })).nets;
}

/** The domain called `name`; throws LibvirtError NO_DOMAIN when there is none. */
export function lookupDomainByName(client: Caller, name: string): Promise<DomainRef> {
  return client.call('DOMAIN_LOOKUP_BY_NAME', { name });
}

/** The domain called `name`, or null when there is none. */
export async function findDomainByName(client: Caller, name: string): Promise<DomainRef | null> {
  try {
    return await lookupDomainByName(client, name);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** The volume `name` in `pool`, or null when there is none. */
export async function findVolume(client: Caller, pool: StoragePoolRef, name: string): Promise<StorageVolRef | null> {
  try {
    return await client.call('STORAGE_VOL_LOOKUP_BY_NAME', { pool, name });
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/**
 * The metadata element in namespace `uri` (as libvirt returns it: it may be spelled with
 * the prefix it was stored under), or null when the domain has none (error 80).
 */
export async function getMetadataElement(
  client: Caller,
  dom: DomainRef,
  uri: string,
  flags = 0,
): Promise<string | null> {
  try {
    return await client.call('DOMAIN_GET_METADATA', { dom, type: MetadataType.ELEMENT, uri, flags });
  } catch (err) {
    if (err instanceof LibvirtError && err.code === ErrorCode.NO_DOMAIN_METADATA) return null;
    throw err;
  }
}

/** Sets (or, with `xml` null, removes) the metadata element in namespace `uri`; `key` is the prefix libvirt stores it under. */
export async function setMetadataElement(
  client: Caller,
  dom: DomainRef,
  options: { uri: string; key: string; xml: string | null; flags?: number },
): Promise<void> {
  await client.call('DOMAIN_SET_METADATA', {
    dom,
    type: MetadataType.ELEMENT,
    metadata: options.xml,
    key: options.xml === null ? null : options.key,
    uri: options.uri,
    flags: options.flags ?? 0,
  });
}

/** One domain's stats from CONNECT_GET_ALL_DOMAIN_STATS, flattened to `field → value`. */
export interface DomainStats {
  dom: DomainRef;
  stats: Record<string, number | bigint | boolean | string>;
}

/**
 * Stats of every domain (or of `doms`) in one call: with the default STATE group, each
 * record holds `state.state` and `state.reason`, enough for a fleet listing.
 */
export async function getAllDomainStats(
  client: Caller,
  options: { stats?: number; flags?: number; doms?: DomainRef[] } = {},
): Promise<DomainStats[]> {
  const records = await client.call('CONNECT_GET_ALL_DOMAIN_STATS', {
    doms: options.doms ?? [],
    stats: options.stats ?? DomainStatsType.STATE,
    flags: options.flags ?? 0,
  });
  return records.map((r) => ({ dom: r.dom, stats: typedParamsToRecord(r.params) }));
}

/** The DHCP leases of a network, optionally only for one MAC address. */
export async function getDhcpLeases(client: Caller, net: NetworkRef, mac: string | null = null): Promise<DhcpLease[]> {
  return (await client.call('NETWORK_GET_DHCP_LEASES', { net, mac, needResults: 1, flags: 0 })).leases;
}

/** A domain's interface addresses from `source` (InterfaceAddressesSource.*). */
export function getInterfaceAddresses(client: Caller, dom: DomainRef, source: number): Promise<DomainInterface[]> {
  return client.call('DOMAIN_INTERFACE_ADDRESSES', { dom, source, flags: 0 });
}

/**
 * The domain types the host offers for `arch` (e.g. `['qemu', 'kvm']`), read from the
 * capabilities XML: the provider picks kvm when present, else qemu (TCG).
 */
export function domainTypesFromCapabilities(capabilitiesXml: string, arch = 'x86_64'): string[] {
  const types = new Set<string>();
  for (const guest of capabilitiesXml.split(/<guest>/).slice(1)) {
    const body = guest.split('</guest>')[0] ?? '';
    if (!new RegExp(`<arch\\s+name=['"]${arch}['"]`).test(body)) continue;
    for (const m of body.matchAll(/<domain\s+type=['"]([^'"]+)['"]/g)) types.add(m[1]!);
  }
  return [...types];
}
