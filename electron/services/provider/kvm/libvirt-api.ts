/**
 * The operations the provider needs on ONE libvirt host, by name rather than by handle:
 * the real client implements them over the RPC protocol (client-api.ts), and an
 * in-memory fake (test/support/fake-libvirt.ts) implements them for unit tests, with
 * fault injection and the pool-job checks that libvirt itself makes.
 */
import type { Duplex, Readable } from 'node:stream';
import { DOMAIN_STATES } from '../../../../shared/proxies.js';

/** A domain's state, named (virDomainState). */
export type DomainStateName = (typeof DOMAIN_STATES)[number];

/**
 * Names of virDomainState values, index = value: the list the renderer's schema accepts
 * (shared/proxies.ts), so a state the client reads is always one the fleet view can show.
 */
export const DOMAIN_STATE_NAMES: readonly DomainStateName[] = DOMAIN_STATES;

/** One domain with its XML and state: what a fleet listing needs. */
export interface DomainInfo {
  name: string;
  /** The domain XML (DOMAIN_GET_XML_DESC, flags 0): it keeps our metadata's namespace. */
  xml: string;
  state: DomainStateName;
}

/** A storage pool's facts. */
export interface PoolInfo {
  name: string;
  active: boolean;
  capacityBytes: number;
  availableBytes: number;
}

/** A volume's facts. */
export interface VolumeInfo {
  name: string;
  /** The path on the host (what an overlay's backingStore names). */
  path: string;
  /** Virtual size: for qcow2 the size in its header, for raw the file's. */
  capacityBytes: number;
  /** Bytes actually used on disk. */
  allocationBytes: number;
}

/** Where an address was learnt. */
export type AddressSource = 'lease' | 'agent' | 'arp';

/** One guest address, labelled with its source. */
export interface GuestAddress {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
  source: AddressSource;
  mac?: string;
  interface?: string;
  /** For a DHCP lease: when it expires (ms since the epoch). The latest one for a MAC is the current one. */
  expiresAt?: number;
}

/**
 * A running domain's cumulative counters, from one CONNECT_GET_ALL_DOMAIN_STATS call per
 * host (groups CPU_TOTAL and INTERFACE). Counters start at zero when the domain starts.
 */
export interface DomainCounters {
  name: string;
  /** libvirt's id of the running domain: a new id is a new run, whose counters started again. */
  id: number;
  /** CPU time the domain used, in nanoseconds (`cpu.time`). */
  cpuTimeNs: number;
  /**
   * Summed over its interfaces, as the domain sees them: `rx` is what came into the guest,
   * `tx` what left it (libvirt swaps a tap device's host-side counters to say so).
   */
  rxBytes: number;
  rxPackets: number;
  txBytes: number;
  txPackets: number;
}

/** A lifecycle event, reduced to what the provider reacts to. */
export interface DomainEvent {
  domain: string;
  /** `STARTED`, `STOPPED`, `UNDEFINED`… (LifecycleEventName). */
  event: string;
}

/** Options of {@link LibvirtApi.openConsole}. */
export interface ConsoleOptions {
  /** Take the console over from the client holding it (VIR_DOMAIN_CONSOLE_FORCE): that client is disconnected. */
  force: boolean;
}

export interface UploadOptions {
  length: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/** States in which a guest may hold a lease: a listing needs such a domain's NIC, so its XML. */
export function mayHoldAddress(state: DomainStateName): boolean {
  return state === 'running' || state === 'paused' || state === 'blocked';
}

/**
 * A domain as a fleet listing reads it: for a domain that may hold an address (running,
 * paused, blocked) the whole XML, whose NIC finds its lease; for any other only our
 * metadata element, asked by namespace URI (a tenth of the bytes, and nothing to parse
 * but the element).
 */
export interface FleetDomain {
  name: string;
  state: DomainStateName;
  /** The whole XML (DOMAIN_GET_XML_DESC): given for a domain that may hold an address, and may be given for any. */
  xml?: string;
  /** Without `xml`: the metadata element of the asked namespace alone (DOMAIN_GET_METADATA), null when the domain has none. */
  metadata?: string | null;
}

/** libvirt on one host, as the provider uses it. Missing objects are `null`, never errors, where a lookup is asked. */
export interface LibvirtApi {
  /** Every domain with its XML and state, in few calls (list, then all XML pipelined, plus one stats call). */
  listDomains(): Promise<DomainInfo[]>;
  /**
   * Every domain as a fleet listing needs it ({@link FleetDomain}), in few calls: one stats
   * call (names and states), then per domain its XML or its element of namespace `uri`, pipelined.
   */
  listFleetDomains(uri: string): Promise<FleetDomain[]>;
  /** One domain with XML and state, or null. */
  getDomain(name: string): Promise<DomainInfo | null>;
  /** Defines a persistent domain, validating its XML against libvirt's schema. */
  defineDomain(xml: string): Promise<void>;
  startDomain(name: string): Promise<void>;
  /** Asks the guest to shut down (ACPI power button); returns at once. */
  shutdownDomain(name: string): Promise<void>;
  /** Pulls the plug. */
  destroyDomain(name: string): Promise<void>;
  /**
   * Replaces the metadata element of namespace `uri` (DOMAIN_SET_METADATA, stored under
   * prefix `key`) without a restart: in the running domain and in its persistent
   * definition, so the next boot keeps it; a stopped domain's definition only.
   */
  setMetadata(domain: string, options: { uri: string; key: string; xml: string }): Promise<void>;
  /** Undefines with NVRAM, managed save and snapshot metadata removed. */
  undefineDomain(name: string): Promise<void>;

  poolInfo(pool: string): Promise<PoolInfo>;
  refreshPool(pool: string): Promise<void>;
  listVolumes(pool: string): Promise<string[]>;
  getVolume(pool: string, name: string): Promise<VolumeInfo | null>;
  /** Creates a volume from XML (flags 0: dir pools refuse VALIDATE). */
  createVolume(pool: string, xml: string): Promise<VolumeInfo>;
  /**
   * When the volume was last written (its mtime, ms since the epoch), from its XML's
   * timestamps; undefined where the pool type keeps none.
   */
  volumeChangedAt(pool: string, name: string): Promise<number | undefined>;
  /** The path of the volume's backing store (an overlay's base), from its XML; undefined when it has none or is gone. */
  volumeBackingPath(pool: string, name: string): Promise<string | undefined>;
  deleteVolume(pool: string, name: string): Promise<void>;
  /** Streams `source` into the volume. */
  uploadVolume(pool: string, name: string, source: Readable, options: UploadOptions): Promise<void>;
  /**
   * Starts a transient directory pool over `path` (an existing directory on the host): it
   * lives until {@link destroyPool}, and leaves no definition behind.
   */
  createDirPool(name: string, path: string): Promise<void>;
  /** Stops a pool; a transient one is gone with it (its directory and files stay). */
  destroyPool(name: string): Promise<void>;
  /** Creates a volume in `pool` from XML as a copy of `fromPool`/`fromName`, made by libvirt on the host. */
  copyVolume(pool: string, xml: string, fromPool: string, fromName: string): Promise<VolumeInfo>;

  /** Whether the libvirt network is active (a network that does not exist is a NO_NETWORK error). */
  networkActive(network: string): Promise<boolean>;
  /** The DHCP leases of a network, optionally for one MAC. */
  dhcpLeases(network: string, mac?: string): Promise<GuestAddress[]>;
  /** A domain's addresses from one source. */
  interfaceAddresses(domain: string, source: AddressSource): Promise<GuestAddress[]>;
  /** The counters of every running domain, in one call. */
  domainCounters(): Promise<DomainCounters[]>;
  /** Free host memory in bytes. */
  freeMemory(): Promise<number>;
  /** libvirt's host UUID: two host entries with the same one reach the same hypervisor. */
  hostUuid(): Promise<string>;
  /** Whether libvirt offers KVM (domain type kvm) here. */
  kvmOffered(): Promise<boolean>;
  /**
   * Opens the domain's first console device (the serial port) as a byte stream: written
   * bytes reach the guest, the guest's output can be read; ending it ends the session,
   * destroying it aborts. Always VIR_DOMAIN_CONSOLE_SAFE; when another client holds the
   * console it fails with OPERATION_FAILED ("Active console session exists…") unless
   * `force` is set.
   */
  openConsole(domain: string, options: ConsoleOptions): Promise<Duplex>;
  /** Subscribes to lifecycle events of every domain; resolves to the unsubscribe function. */
  onLifecycle(listener: (event: DomainEvent) => void): Promise<() => Promise<void>>;
}

/** The operations that change a pool: libvirt refuses some of them while another runs, so they are serialised per host. */
export const POOL_CHANGING = ['createVolume', 'deleteVolume', 'uploadVolume', 'refreshPool', 'copyVolume'] as const;
