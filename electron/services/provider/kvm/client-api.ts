/**
 * {@link LibvirtApi} over the RPC client. Calls that do not depend on each other are sent
 * together (the connection pipelines them), so a fleet listing of N domains costs three
 * round trips, not N+1: the list, all XML descriptions at once, and one stats call.
 */
import type { Duplex, Readable } from 'node:stream';
import { z } from 'zod';
import {
  ConsoleFlags,
  DomainAffect,
  type DomainRef,
  DomainDefine,
  DomainStatsType,
  GetAllDomainStatsFlags,
  DomainUndefine,
  IpAddrType,
  InterfaceAddressesSource,
  type LibvirtClient,
  type StoragePoolRef,
  StoragePoolState,
  findDomainByName,
  findVolume,
  formatUuid,
  getAllDomainStats,
  getDhcpLeases,
  getMetadataElement,
  getInterfaceAddresses,
  isNotFound,
  ListPoolsOrNetworks,
  listAllDomains,
  listAllNetworks,
  listAllVolumes,
  setMetadataElement,
} from '../../../libvirt/index.js';
import { hostUuid, kvmOffered } from '../../hosts/host-info.js';
import { countersFromStats } from './domain-counters.js';
import { FleetReadCache } from './fleet-read-cache.js';
import { retryWhilePoolBusy } from './pool-busy.js';
import { buildStagingPoolXml } from './xml/staging-xml.js';
import {
  type AddressSource,
  type ConsoleOptions,
  DOMAIN_STATE_NAMES,
  type DomainCounters,
  type DomainEvent,
  type DomainInfo,
  type DomainStateName,
  type FleetDomain,
  type GuestAddress,
  type LibvirtApi,
  mayHoldAddress,
  type PoolInfo,
  type UploadOptions,
  type VolumeInfo,
} from './libvirt-api.js';

const StateStatsSchema = z.object({ 'state.state': z.number().int().min(0) }).loose();
const SOURCE_CODES: Record<AddressSource, number> = {
  lease: InterfaceAddressesSource.LEASE,
  agent: InterfaceAddressesSource.AGENT,
  arp: InterfaceAddressesSource.ARP,
};

function stateName(code: number): DomainStateName {
  return DOMAIN_STATE_NAMES[code] ?? 'nostate';
}

/** Null instead of a not-found error: domains may vanish between a list and the next call. */
async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

export class ClientApi implements LibvirtApi {
  private readonly pools = new Map<string, Promise<StoragePoolRef>>();
  private uuid: Promise<string> | undefined;
  /** What the last fleet listing read of each domain, while events say it is unchanged. */
  private readonly fleetReads: FleetReadCache;

  constructor(readonly client: LibvirtClient) {
    this.fleetReads = new FleetReadCache(async (onChange) => {
      const changed = (e: { dom: DomainRef }) => onChange(formatUuid(e.dom.uuid));
      await Promise.all([client.onLifecycle(changed), client.onMetadataChange(changed)]);
    });
    client.once('close', () => this.fleetReads.stop());
  }

  async listDomains(): Promise<DomainInfo[]> {
    const doms = await listAllDomains(this.client);
    const [xmls, stats] = await Promise.all([
      Promise.all(doms.map((dom) => orNull(this.client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 })))),
      doms.length ? getAllDomainStats(this.client, { stats: DomainStatsType.STATE }) : Promise.resolve([]),
    ]);
    const states = new Map(
      stats.map((s) => [formatUuid(s.dom.uuid), stateName(StateStatsSchema.parse(s.stats)['state.state'])]),
    );
    const out: DomainInfo[] = [];
    doms.forEach((dom, i) => {
      const xml = xmls[i];
      // Gone since the list (deleted concurrently): not part of the fleet any more.
      if (xml === null || xml === undefined) return;
      out.push({
        name: dom.name,
        xml,
        state: states.get(formatUuid(dom.uuid)) ?? (dom.id >= 0 ? 'running' : 'shutoff'),
      });
    });
    return out;
  }

  async listFleetDomains(uri: string): Promise<FleetDomain[]> {
    // The stats call alone names every domain with its state: no list call before it.
    const [stats] = await Promise.all([
      getAllDomainStats(this.client, { stats: DomainStatsType.STATE }),
      this.fleetReads.ready(),
    ]);
    const uuids = new Set<string>();
    const read = await Promise.all(
      stats.map(async ({ dom, stats: fields }): Promise<FleetDomain | null> => {
        const state = stateName(StateStatsSchema.parse(fields)['state.state']);
        const uuid = formatUuid(dom.uuid);
        uuids.add(uuid);
        // Unchanged since the last listing (no event said otherwise): no call at all (fleet-read-cache.ts).
        if (mayHoldAddress(state)) {
          const xml = await this.fleetReads.read(uuid, 'xml', () =>
            orNull(this.client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 })),
          );
          return xml === null ? null : { name: dom.name, state, xml };
        }
        try {
          return {
            name: dom.name,
            state,
            metadata: await this.fleetReads.read(uuid, `element ${uri}`, () =>
              getMetadataElement(this.client, dom, uri),
            ),
          };
        } catch (err) {
          if (isNotFound(err)) return null; // gone since the stats call
          throw err;
        }
      }),
    );
    this.fleetReads.retain(uuids);
    return read.filter((d): d is FleetDomain => d !== null);
  }

  async domainCounters(): Promise<DomainCounters[]> {
    const records = await getAllDomainStats(this.client, {
      stats: DomainStatsType.CPU_TOTAL | DomainStatsType.INTERFACE,
      flags: GetAllDomainStatsFlags.ACTIVE | GetAllDomainStatsFlags.NOWAIT,
    });
    return records.map((r) => countersFromStats(r.dom.name, r.dom.id, r.stats));
  }

  async getDomain(name: string): Promise<DomainInfo | null> {
    const dom = await findDomainByName(this.client, name);
    if (!dom) return null;
    const [xml, state] = await Promise.all([
      orNull(this.client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 })),
      orNull(this.client.call('DOMAIN_GET_STATE', { dom, flags: 0 })),
    ]);
    if (xml === null || state === null) return null;
    return { name: dom.name, xml, state: stateName(state.state) };
  }

  async defineDomain(xml: string): Promise<void> {
    await this.client.call('DOMAIN_DEFINE_XML_FLAGS', { xml, flags: DomainDefine.VALIDATE });
  }

  async startDomain(name: string): Promise<void> {
    await this.client.call('DOMAIN_CREATE', { dom: await this.dom(name) });
  }

  async shutdownDomain(name: string): Promise<void> {
    await this.client.call('DOMAIN_SHUTDOWN', { dom: await this.dom(name) });
  }

  async destroyDomain(name: string): Promise<void> {
    await this.client.call('DOMAIN_DESTROY', { dom: await this.dom(name) });
  }

  async setMetadata(name: string, options: { uri: string; key: string; xml: string }): Promise<void> {
    const dom = await this.dom(name);
    // LIVE on a stopped domain is refused; CONFIG alone on a running one would be lost from the running XML listings read.
    const flags = dom.id >= 0 ? DomainAffect.LIVE | DomainAffect.CONFIG : DomainAffect.CONFIG;
    await setMetadataElement(this.client, dom, { ...options, flags });
  }

  async undefineDomain(name: string): Promise<void> {
    const flags = DomainUndefine.NVRAM | DomainUndefine.MANAGED_SAVE | DomainUndefine.SNAPSHOTS_METADATA;
    await this.client.call('DOMAIN_UNDEFINE_FLAGS', { dom: await this.dom(name), flags });
  }

  async poolInfo(pool: string): Promise<PoolInfo> {
    const info = await this.client.call('STORAGE_POOL_GET_INFO', { pool: await this.pool(pool) });
    return {
      name: pool,
      active: info.state === StoragePoolState.RUNNING,
      capacityBytes: Number(info.capacity),
      availableBytes: Number(info.available),
    };
  }

  async refreshPool(pool: string): Promise<void> {
    const ref = await this.pool(pool);
    await retryWhilePoolBusy(() => this.client.call('STORAGE_POOL_REFRESH', { pool: ref, flags: 0 }));
  }

  async listVolumes(pool: string): Promise<string[]> {
    return (await listAllVolumes(this.client, await this.pool(pool))).map((v) => v.name);
  }

  async getVolume(pool: string, name: string): Promise<VolumeInfo | null> {
    const vol = await findVolume(this.client, await this.pool(pool), name);
    if (!vol) return null;
    const [info, path] = await Promise.all([
      orNull(this.client.call('STORAGE_VOL_GET_INFO', { vol })),
      orNull(this.client.call('STORAGE_VOL_GET_PATH', { vol })),
    ]);
    if (!info || path === null) return null;
    return { name, path, capacityBytes: Number(info.capacity), allocationBytes: Number(info.allocation) };
  }

  async createVolume(pool: string, xml: string): Promise<VolumeInfo> {
    // flags 0: VIR_STORAGE_VOL_CREATE_VALIDATE is refused by directory pools (libvirt 9.0).
    const vol = await this.client.call('STORAGE_VOL_CREATE_XML', { pool: await this.pool(pool), xml, flags: 0 });
    const [info, path] = await Promise.all([
      this.client.call('STORAGE_VOL_GET_INFO', { vol }),
      this.client.call('STORAGE_VOL_GET_PATH', { vol }),
    ]);
    return { name: vol.name, path, capacityBytes: Number(info.capacity), allocationBytes: Number(info.allocation) };
  }

  async volumeChangedAt(pool: string, name: string): Promise<number | undefined> {
    const vol = await findVolume(this.client, await this.pool(pool), name);
    if (!vol) return undefined;
    const xml = await this.client.call('STORAGE_VOL_GET_XML_DESC', { vol, flags: 0 });
    // <target><timestamps><mtime>1796234590.983470259</mtime>…: seconds with a fraction. The
    // target's come first (a backing store has its own). mtime, not ctime: a launch's
    // volume is written when made, and ctime cannot be set back to age a volume on purpose.
    const mtime = Number(/<mtime>\s*(\d+(?:\.\d+)?)\s*<\/mtime>/.exec(xml)?.[1] ?? NaN);
    return Number.isFinite(mtime) && mtime > 0 ? Math.round(mtime * 1000) : undefined;
  }

  async volumeBackingPath(pool: string, name: string): Promise<string | undefined> {
    const vol = await findVolume(this.client, await this.pool(pool), name);
    if (!vol) return undefined;
    const xml = await this.client.call('STORAGE_VOL_GET_XML_DESC', { vol, flags: 0 });
    return /<backingStore>\s*<path>([^<]+)<\/path>/.exec(xml)?.[1];
  }

  async deleteVolume(pool: string, name: string): Promise<void> {
    const vol = await findVolume(this.client, await this.pool(pool), name);
    if (vol) await retryWhilePoolBusy(() => this.client.call('STORAGE_VOL_DELETE', { vol, flags: 0 }));
  }

  async createDirPool(name: string, path: string): Promise<void> {
    await this.client.call('STORAGE_POOL_CREATE_XML', { xml: buildStagingPoolXml(name, path), flags: 0 });
  }

  async destroyPool(name: string): Promise<void> {
    const pool = await this.pool(name);
    // A transient pool's handle dies with it; a later pool of that name is another object.
    this.pools.delete(name);
    await this.client.call('STORAGE_POOL_DESTROY', { pool });
  }

  async copyVolume(pool: string, xml: string, fromPool: string, fromName: string): Promise<VolumeInfo> {
    const clonevol = await this.client.call('STORAGE_VOL_LOOKUP_BY_NAME', {
      pool: await this.pool(fromPool),
      name: fromName,
    });
    const target = await this.pool(pool);
    const vol = await retryWhilePoolBusy(() =>
      this.client.call('STORAGE_VOL_CREATE_XML_FROM', { pool: target, xml, clonevol, flags: 0 }),
    );
    const [info, path] = await Promise.all([
      this.client.call('STORAGE_VOL_GET_INFO', { vol }),
      this.client.call('STORAGE_VOL_GET_PATH', { vol }),
    ]);
    return { name: vol.name, path, capacityBytes: Number(info.capacity), allocationBytes: Number(info.allocation) };
  }

  async uploadVolume(pool: string, name: string, source: Readable, options: UploadOptions): Promise<void> {
    const vol = await this.client.call('STORAGE_VOL_LOOKUP_BY_NAME', { pool: await this.pool(pool), name });
    await this.client.uploadVolume(vol, source, {
      length: BigInt(options.length),
      total: options.length,
      ...(options.onProgress ? { onProgress: (done: number) => options.onProgress!(done, options.length) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  async networkActive(network: string): Promise<boolean> {
    // The lookup first: a missing network is libvirt's own NO_NETWORK error, not "inactive".
    await this.client.call('NETWORK_LOOKUP_BY_NAME', { name: network });
    const active = await listAllNetworks(this.client, ListPoolsOrNetworks.ACTIVE);
    return active.some((n) => n.name === network);
  }

  async dhcpLeases(network: string, mac?: string): Promise<GuestAddress[]> {
    const net = await this.client.call('NETWORK_LOOKUP_BY_NAME', { name: network });
    const leases = await getDhcpLeases(this.client, net, mac ?? null);
    return leases.map((l) => ({
      address: l.ipaddr,
      prefix: l.prefix,
      family: l.type === IpAddrType.IPV6 ? 'ipv6' : 'ipv4',
      source: 'lease',
      ...(l.mac ? { mac: l.mac } : {}),
      interface: l.iface,
      // Seconds since the epoch; 0 for a lease that never expires.
      ...(Number(l.expirytime) > 0 ? { expiresAt: Number(l.expirytime) * 1000 } : {}),
    }));
  }

  async interfaceAddresses(domain: string, source: AddressSource): Promise<GuestAddress[]> {
    const ifaces = await getInterfaceAddresses(this.client, await this.dom(domain), SOURCE_CODES[source]);
    return ifaces.flatMap((i) =>
      i.addrs.map((a) => ({
        address: a.addr,
        prefix: a.prefix,
        family: a.type === IpAddrType.IPV6 ? ('ipv6' as const) : ('ipv4' as const),
        source,
        ...(i.hwaddr ? { mac: i.hwaddr } : {}),
        interface: i.name,
      })),
    );
  }

  async freeMemory(): Promise<number> {
    return Number(await this.client.call('NODE_GET_FREE_MEMORY'));
  }

  kvmOffered(): Promise<boolean> {
    return kvmOffered(this.client);
  }

  /** Asked once per connection: the identity does not change while the daemon runs. */
  hostUuid(): Promise<string> {
    this.uuid ??= hostUuid(this.client);
    this.uuid.catch(() => (this.uuid = undefined));
    return this.uuid;
  }

  async openConsole(domain: string, options: ConsoleOptions): Promise<Duplex> {
    // devName null: the first console, which the builders make the serial port.
    return this.client.openConsole(
      await this.dom(domain),
      null,
      ConsoleFlags.SAFE | (options.force ? ConsoleFlags.FORCE : 0),
    );
  }

  onLifecycle(listener: (event: DomainEvent) => void): Promise<() => Promise<void>> {
    return this.client.onLifecycle((e) => listener({ domain: e.dom.name, event: e.eventName }));
  }

  private dom(name: string): Promise<DomainRef> {
    return this.client.call('DOMAIN_LOOKUP_BY_NAME', { name });
  }

  /** Pool handles are stable for the connection's life: looked up once. */
  private pool(name: string): Promise<StoragePoolRef> {
    let ref = this.pools.get(name);
    if (!ref) {
      ref = this.client.call('STORAGE_POOL_LOOKUP_BY_NAME', { name });
      ref.catch(() => this.pools.delete(name));
      this.pools.set(name, ref);
    }
    return ref;
  }
}
