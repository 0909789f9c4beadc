/**
 * The fleet, rebuilt from libvirt alone: every domain whose XML holds our metadata
 * element, on every host, asked in parallel. A host that is down is reported beside the
 * proxies, never fatal. A listing asks libvirt for our element by its namespace URI
 * (DOMAIN_GET_METADATA: libvirt matched the namespace, though 9.0 hands the element back
 * with it stripped) and reads whole XMLs only where a NIC is needed for an address; a
 * single domain's XML is parsed, so there the element is matched by its namespace URI.
 */
import { CredentialsInKeyringError } from '../../credentials/keyring-credentials-store.js';
import type { ResolvedKVMHost } from '../../../../shared/config.js';
import { type ProviderContext, type ProxyRecord, toRecord } from './context.js';
import { ProxyNotFoundError } from './errors.js';
import {
  type DomainInfo,
  type FleetDomain,
  type GuestAddress,
  type LibvirtApi,
  mayHoldAddress,
} from './libvirt-api.js';
import { type InstanceMetadata, METADATA_NS, parseInstanceMetadata } from './xml/metadata.js';
import { type DomainFacts, domainFacts } from './domain-facts.js';
import { type Hypervisor, groupHypervisors, owningEntry } from './hypervisors.js';
import { instanceIds } from './names.js';
import { type AddressReport, type Nic, collectAddresses, currentAddresses } from './readiness.js';
import { messageOf } from '../../../../shared/errors.js';
import type { LaunchedBy } from '../../../../shared/fleet-meta.js';
import { byText } from '../../../../shared/collate.js';

/** How listing one host went. */
export interface HostListing {
  host: string;
  ok: boolean;
  /** Why not, when not ok. */
  error?: string;
  proxies: number;
  /** Another entry reaches the same hypervisor and lists its domains: that entry's name. */
  sameAs?: string;
  /** Domains carrying a metadata element this version cannot read. */
  unreadable: Array<{ domain: string; error: string }>;
}

export interface FleetListing {
  proxies: ProxyRecord[];
  hosts: HostListing[];
  /** Who is asking (this OS user on this workstation): what "mine" means for `launchedBy`. */
  you: LaunchedBy;
}

/** Our metadata in a domain's XML; undefined for domains that are not ours. */
export function metadataOf(domain: DomainInfo): InstanceMetadata | undefined {
  return parseInstanceMetadata(domain.xml);
}

/**
 * Elements already parsed, by their text. The background re-listing reads every proxy's
 * element once a minute and almost none has changed: a string lookup instead of an XML
 * parse for each of 1,000 (the parse was the largest part of an idle backend's re-listing,
 * bench (i)). The parsed objects are shared by the listings that meet the same text, and
 * nothing changes them (records copy their fields). Bounded: emptied when it grows past
 * {@link PARSED_ELEMENTS_MAX} (a fleet that large re-parses once).
 */
const parsedElements = new Map<string, InstanceMetadata | undefined>();
const PARSED_ELEMENTS_MAX = 20_000;

function parseElementOnce(element: string): InstanceMetadata | undefined {
  if (parsedElements.has(element)) return parsedElements.get(element);
  const parsed = parseInstanceMetadata(element, { element: true }); // an unreadable element throws, and is not kept
  if (parsedElements.size >= PARSED_ELEMENTS_MAX) parsedElements.clear();
  parsedElements.set(element, parsed);
  return parsed;
}

/**
 * Whole XMLs already read, by their text, for the same reason as {@link parsedElements}: a
 * running proxy's XML comes back unchanged from every re-listing (the same string, when
 * the connection kept it: fleet-read-cache.ts), and parsing 1,000 of them a minute, twice
 * (metadata and NIC), was most of a re-listing of a running fleet.
 */
let parsedXmls = new Map<string, { meta: InstanceMetadata | undefined; nic: Nic }>();
/** The XMLs met since the last prune: a listing keeps only these (a whole XML is kilobytes; a started domain's is new). */
let metXmls = new Map<string, { meta: InstanceMetadata | undefined; nic: Nic }>();

function parseXmlOnce(xml: string): { meta: InstanceMetadata | undefined; nic: Nic } {
  let parsed = metXmls.get(xml) ?? parsedXmls.get(xml);
  // Unreadable metadata throws, and is not kept.
  parsed ??= { meta: parseInstanceMetadata(xml), nic: nicOf({ xml }) };
  metXmls.set(xml, parsed);
  return parsed;
}

/** After a listing: forget the XMLs it did not meet (bounded by the fleet, not by its history). */
function pruneParsedXmls(): void {
  parsedXmls = metXmls;
  metXmls = new Map();
}

/** Our metadata of a listed domain: from its element alone, or from its whole XML; undefined for domains that are not ours. */
export function fleetMetadataOf(domain: FleetDomain): InstanceMetadata | undefined {
  if (domain.xml !== undefined) return parseXmlOnce(domain.xml).meta;
  return domain.metadata ? parseElementOnce(domain.metadata) : undefined;
}

/** A NIC no lease matches, on no network: a domain whose XML has no MAC has no lease either. */
const NO_NIC: Nic = { mac: '00:00:00:00:00:00' };

/** The NIC addresses are looked up by: the first interface of the domain's XML (the builders make one). */
export function nicOf(domain: Pick<DomainInfo, 'xml'>): Nic {
  let facts: DomainFacts | undefined;
  try {
    facts = domainFacts(domain.xml);
  } catch {
    facts = undefined;
  }
  const nic = facts?.interfaces[0];
  return nic ?? NO_NIC;
}

/** The proxies of one hypervisor, listed once through its first entry, each under the entry it belongs to. */
async function listHypervisor(
  hv: Hypervisor,
): Promise<{ proxies: ProxyRecord[]; unreadable: HostListing['unreadable'] }> {
  const domains = await hv.api.listFleetDomains(METADATA_NS);
  const ours: Array<{ domain: FleetDomain; meta: InstanceMetadata; nic: Nic }> = [];
  const unreadable: HostListing['unreadable'] = [];
  for (const domain of domains) {
    try {
      const meta = fleetMetadataOf(domain);
      // A domain listed without its XML holds no address: no NIC to look one up by.
      if (meta) ours.push({ domain, meta, nic: domain.xml === undefined ? NO_NIC : parseXmlOnce(domain.xml).nic });
    } catch (err) {
      unreadable.push({ domain: domain.name, error: messageOf(err) });
    }
  }
  // One lease call per network the proxies are on; a network that is gone must not hide the proxies.
  const networks = [...new Set(ours.map((o) => o.nic.network).filter((n): n is string => n !== undefined))];
  const leases = new Map(await Promise.all(networks.map(async (n) => [n, await networkLeases(hv.api, n)] as const)));
  const proxies = ours.map(({ domain, meta, nic }) => {
    const { host, unknownHost } = owningEntry(meta.host, hv.members);
    const network = nic.network ? leases.get(nic.network) : undefined;
    const seen = (network?.leases ?? []).filter((l) => l.mac?.toLowerCase() === nic.mac);
    const record = toRecord(host.name, domain, meta, currentAddresses(seen, isRunning(domain)), unknownHost);
    if (network?.problem && isRunning(domain) && record.addresses.length === 0)
      record.addressNote = `addresses unknown: ${network.problem}`;
    return record;
  });
  return { proxies, unreadable };
}

/**
 * A network's leases, or why there are none to read: a network that is gone or not active
 * must neither hide the proxies on it nor leave their empty addresses unexplained, and the
 * leases libvirt still keeps for an inactive network (its status file outlives dnsmasq) are
 * no guest's address now. Both are asked at once: one round trip per network.
 */
async function networkLeases(api: LibvirtApi, network: string): Promise<{ leases: GuestAddress[]; problem?: string }> {
  const [leases, active] = await Promise.allSettled([api.dhcpLeases(network), api.networkActive(network)]);
  if (active.status === 'fulfilled' && !active.value)
    return { leases: [], problem: `network ${network} is not active (virsh net-start ${network})` };
  if (leases.status === 'rejected')
    return { leases: [], problem: `the leases of network ${network} could not be read (${messageOf(leases.reason)})` };
  return { leases: leases.value };
}

/** Running as far as addresses go: the guest may hold a lease. */
export function isRunning(domain: Pick<DomainInfo, 'state'>): boolean {
  return mayHoldAddress(domain.state);
}

export async function listFleet(ctx: ProviderContext): Promise<FleetListing> {
  const { hypervisors, unreachable } = await groupHypervisors(ctx);
  const listings = new Map<string, HostListing>();
  for (const { host, error } of unreachable)
    listings.set(host.name, { host: host.name, ok: false, error, proxies: 0, unreadable: [] });
  const proxies: ProxyRecord[] = [];
  await Promise.all(
    hypervisors.map(async (hv) => {
      try {
        const listed = await listHypervisor(hv);
        proxies.push(...listed.proxies);
        for (const member of hv.members) {
          const listing: HostListing = {
            host: member.name,
            ok: true,
            proxies: listed.proxies.filter((p) => p.host === member.name).length,
            unreadable: member === hv.leader ? listed.unreadable : [],
          };
          if (member !== hv.leader) listing.sameAs = hv.leader.name;
          listings.set(member.name, listing);
        }
      } catch (err) {
        for (const member of hv.members)
          listings.set(member.name, {
            host: member.name,
            ok: false,
            error: messageOf(err),
            proxies: 0,
            unreadable: [],
          });
      }
    }),
  );
  pruneParsedXmls();
  return {
    proxies: proxies.sort((a, b) => byText(a.name, b.name) || byText(a.host, b.host)),
    hosts: ctx.config.hosts.map((h) => listings.get(h.name)!),
    you: ctx.identity,
  };
}

/** Where a proxy lives. */
export interface Located {
  /** The entry it belongs to (its metadata's host, or the first entry on its hypervisor). */
  host: ResolvedKVMHost;
  api: LibvirtApi;
  domain: DomainInfo;
  metadata: InstanceMetadata;
  /** Set when its metadata names a host that is not an entry on its hypervisor. */
  unknownHost?: string;
}

/**
 * The proxy called `name`, or undefined; `unreachable` collects hosts that could not be
 * asked. Every entry is asked; of the answers, the entry the proxy's metadata names wins,
 * never merely the first to answer (two entries may reach one hypervisor).
 */
export async function findProxy(
  ctx: ProviderContext,
  name: string,
  unreachable: string[] = [],
  options: { replacement?: boolean } = {},
): Promise<Located | undefined> {
  const ids = instanceIds(name);
  const found = await Promise.all(
    ctx.config.hosts.map(async (host): Promise<Located[]> => {
      try {
        const api = await ctx.apiFor(host.name);
        // Both ids a name can have (names.ts): a replaced proxy lives under the second.
        const domains = await Promise.all(ids.map((id) => api.getDomain(id)));
        const located: Located[] = [];
        for (const domain of domains) {
          const metadata = domain ? metadataOf(domain) : undefined;
          if (domain && metadata?.name === name) located.push({ host, api, domain, metadata });
        }
        return located;
      } catch (err) {
        unreachable.push(`${host.name} (${messageOf(err)})`);
        return [];
      }
    }),
  );
  const all = found.flat();
  // While a replacement is under way both exist: the one serving is the one that replaces nothing.
  const serving = all.filter((f) =>
    options.replacement ? f.metadata.replaces !== undefined : f.metadata.replaces === undefined,
  );
  const answers = serving.length || options.replacement ? serving : all;
  const own = answers.find((f) => f.metadata.host === f.host.name);
  if (own) return own;
  const first = answers[0];
  return first && { ...first, unknownHost: first.metadata.host };
}

/** Like {@link findProxy}, but a missing proxy is a {@link ProxyNotFoundError}. */
export async function locate(ctx: ProviderContext, name: string): Promise<Located> {
  const unreachable: string[] = [];
  const found = await findProxy(ctx, name, unreachable);
  if (!found) throw new ProxyNotFoundError(name, unreachable);
  return found;
}

/** Everything known about one proxy. */
export interface ProxyInspection {
  proxy: ProxyRecord;
  metadata: InstanceMetadata;
  domainXml: string;
  /** Addresses from every source, each labelled; `problems` says why a source was silent. */
  addresses: GuestAddress[];
  problems: AddressReport['problems'];
  /** Whether BasicAuth credentials are stored on this workstation (the secret itself is not shown). */
  hasCredentials: boolean;
}

export async function inspectProxy(ctx: ProviderContext, name: string): Promise<ProxyInspection> {
  const { host, api, domain, metadata, unknownHost } = await locate(ctx, name);
  const report: AddressReport = isRunning(domain)
    ? await collectAddresses(api, host, domain.name, nicOf(domain))
    : { addresses: [], problems: {} };
  return {
    proxy: toRecord(host.name, domain, metadata, report.addresses, unknownHost),
    metadata,
    domainXml: domain.xml,
    addresses: report.addresses,
    problems: report.problems,
    // Credentials only the desktop app can decrypt are still credentials.
    hasCredentials: await ctx.credentials.get(name).then(
      (c) => c !== undefined,
      (err: unknown) => (err instanceof CredentialsInKeyringError ? true : Promise.reject(err)),
    ),
  };
}
