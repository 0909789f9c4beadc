/**
 * The fleet, rebuilt from libvirt alone: every domain whose XML holds our metadata
 * element, on every host, asked in parallel. A host that is down is reported beside the
 * proxies, never fatal. The XML (not DOMAIN_GET_METADATA, which libvirt 9.0 returns with
 * the namespace stripped) is parsed, so the element is matched by its namespace URI.
 */
import { CredentialsInKeyringError } from '../../credentials/keyring-credentials-store.js';
import type { ResolvedKVMHost } from '../../../../shared/config.js';
import { type ProviderContext, type ProxyRecord, toRecord } from './context.js';
import { ProxyNotFoundError, messageOf } from './errors.js';
import type { DomainInfo, GuestAddress, LibvirtApi } from './libvirt-api.js';
import { type InstanceMetadata, parseInstanceMetadata } from './metadata.js';
import { instanceId, instanceMac } from './names.js';
import { type AddressReport, collectAddresses } from './readiness.js';

/** How listing one host went. */
export interface HostListing {
  host: string;
  ok: boolean;
  /** Why not, when not ok. */
  error?: string;
  proxies: number;
  /** Domains carrying a metadata element this version cannot read. */
  unreadable: Array<{ domain: string; error: string }>;
}

export interface FleetListing {
  proxies: ProxyRecord[];
  hosts: HostListing[];
}

/** Our metadata in a domain's XML; undefined for domains that are not ours. */
export function metadataOf(domain: DomainInfo): InstanceMetadata | undefined {
  return parseInstanceMetadata(domain.xml);
}

/** Every proxy of one host, with lease addresses from one call for the whole network. */
async function listHost(ctx: ProviderContext, host: ResolvedKVMHost): Promise<{ proxies: ProxyRecord[]; listing: HostListing }> {
  const listing: HostListing = { host: host.name, ok: true, proxies: 0, unreadable: [] };
  try {
    const api = await ctx.apiFor(host.name);
    const [domains, leases] = await Promise.all([
      api.listDomains(),
      // Leases are a nicety of the listing: a network that is gone must not hide the proxies.
      host.network ? api.dhcpLeases(host.network).catch((): GuestAddress[] => []) : Promise.resolve<GuestAddress[]>([]),
    ]);
    const proxies: ProxyRecord[] = [];
    for (const domain of domains) {
      let meta: InstanceMetadata | undefined;
      try {
        meta = metadataOf(domain);
      } catch (err) {
        listing.unreadable.push({ domain: domain.name, error: messageOf(err) });
        continue;
      }
      if (!meta) continue;
      const mac = instanceMac(domain.name).toLowerCase();
      proxies.push(toRecord(host.name, domain, meta, leases.filter((l) => l.mac?.toLowerCase() === mac)));
    }
    listing.proxies = proxies.length;
    return { proxies, listing };
  } catch (err) {
    return { proxies: [], listing: { ...listing, ok: false, error: messageOf(err) } };
  }
}

export async function listFleet(ctx: ProviderContext): Promise<FleetListing> {
  const results = await Promise.all(ctx.config.hosts.map((host) => listHost(ctx, host)));
  return {
    proxies: results.flatMap((r) => r.proxies).sort((a, b) => a.name.localeCompare(b.name) || a.host.localeCompare(b.host)),
    hosts: results.map((r) => r.listing),
  };
}

/** Where a proxy lives. */
export interface Located {
  host: ResolvedKVMHost;
  api: LibvirtApi;
  domain: DomainInfo;
  metadata: InstanceMetadata;
}

/** The proxy called `name`, or undefined; `unreachable` collects hosts that could not be asked. */
export async function findProxy(ctx: ProviderContext, name: string, unreachable: string[] = []): Promise<Located | undefined> {
  const id = instanceId(name);
  const found = await Promise.all(
    ctx.config.hosts.map(async (host): Promise<Located | undefined> => {
      try {
        const api = await ctx.apiFor(host.name);
        const domain = await api.getDomain(id);
        const metadata = domain ? metadataOf(domain) : undefined;
        return domain && metadata ? { host, api, domain, metadata } : undefined;
      } catch (err) {
        unreachable.push(`${host.name} (${messageOf(err)})`);
        return undefined;
      }
    }),
  );
  return found.find((f) => f !== undefined);
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
  const { host, api, domain, metadata } = await locate(ctx, name);
  const running = domain.state === 'running' || domain.state === 'paused' || domain.state === 'blocked';
  const report: AddressReport = running ? await collectAddresses(api, host, domain.name, instanceMac(domain.name)) : { addresses: [], problems: {} };
  return {
    proxy: toRecord(host.name, domain, metadata, report.addresses),
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
