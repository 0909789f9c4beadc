/**
 * An in-memory libvirt host implementing the provider's {@link LibvirtApi}, for unit
 * tests. It behaves like libvirt where the provider's correctness depends on it: names
 * are unique, a domain starts only when its volumes exist, a pool refuses a second
 * pool-changing job while one runs (so missing serialisation fails loudly), and any
 * operation can be made to fail on its Nth call (fault injection).
 */
import { randomUUID } from 'node:crypto';
import { Duplex, type Readable } from 'node:stream';
import { ErrorCode, LibvirtError } from '../../electron/libvirt/index.js';
import {
  type AddressSource,
  type ConsoleOptions,
  type DomainCounters,
  type DomainEvent,
  type DomainInfo,
  type DomainStateName,
  type FleetDomain,
  type GuestAddress,
  type LibvirtApi,
  mayHoldAddress,
  POOL_CHANGING,
  type PoolInfo,
  type UploadOptions,
  type VolumeInfo,
} from '../../electron/services/provider/kvm/libvirt-api.js';

type Op = keyof LibvirtApi;

interface FakeVolume {
  /** The backing store's path, as the creating XML named it (an overlay's base). */
  backingPath?: string;
  /** ms since the epoch, like the ctime/mtime libvirt reports for a dir pool's volume. */
  changedAt?: number;
  name: string;
  path: string;
  capacityBytes: number;
  allocationBytes: number;
}

interface FakePool {
  name: string;
  active: boolean;
  capacityBytes: number;
  volumes: Map<string, FakeVolume>;
  /** The pool-changing job running now, if any. */
  job?: string;
}

/** The counters a fake domain's stats report (see {@link FakeHost.addUsage}). */
export type FakeUsage = Omit<DomainCounters, 'name' | 'id'>;

const NO_USAGE: FakeUsage = { cpuTimeNs: 0, rxBytes: 0, rxPackets: 0, txBytes: 0, txPackets: 0 };

interface FakeDomain {
  name: string;
  xml: string;
  state: DomainStateName;
  /** The run's id (a new one at each start, like libvirt's) and its counters, zero at start. */
  id?: number;
  usage?: FakeUsage;
}

/**
 * The guest's side of a fake console: what the guest prints reaches the client's stream,
 * what the client writes is recorded. Like libvirt, a domain has one console holder at a
 * time; a forced open ends the previous holder's stream, and so does the domain stopping.
 */
export class FakeConsole {
  /** Bytes the client wrote, in order. */
  readonly input: Buffer[] = [];
  /** Event-loop turns each write takes before its callback (simulated transport latency). */
  writeTicks = 1;
  private inputListeners = new Set<(text: string) => void>();

  constructor(
    readonly domain: string,
    readonly stream: Duplex,
  ) {}

  /** The guest prints `data` (bytes as given, or a string as UTF-8). */
  print(data: string | Uint8Array): void {
    if (!this.stream.destroyed && !this.stream.readableEnded) this.stream.push(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data));
  }

  /** Everything written so far, as UTF-8 text. */
  written(): string {
    return Buffer.concat(this.input).toString('utf8');
  }

  /** Calls `listener` with each write (the guest "reading" its tty). */
  onInput(listener: (text: string) => void): () => void {
    this.inputListeners.add(listener);
    return () => void this.inputListeners.delete(listener);
  }

  /** @internal the client wrote a chunk */
  received(chunk: Buffer): void {
    this.input.push(chunk);
    for (const l of this.inputListeners) l(chunk.toString('utf8'));
  }

  /** The daemon ends the stream (EOF), as when the domain stops or another client forces the console. */
  end(): void {
    if (!this.stream.destroyed && !this.stream.readableEnded) this.stream.push(null);
  }

  /** The stream fails (a broken connection). */
  fail(error: Error): void {
    this.stream.destroy(error);
  }

  get open(): boolean {
    return !this.stream.destroyed && !this.stream.readableEnded;
  }
}

export interface FakeHostOptions {
  name: string;
  pools?: Array<{ name: string; capacityBytes?: number; active?: boolean }>;
  networks?: string[];
  freeMemoryBytes?: number;
  kvm?: boolean;
  /** Whether guests honour the ACPI power button (default true). */
  acpi?: boolean;
  /** A started domain gets a DHCP lease at once (default true). */
  autoLease?: boolean;
  /** Simulated latency of every call, in event-loop turns (default 2): enough for calls to overlap. */
  ticks?: number;
}

/** The objects a host holds: what tests compare before and after. */
export interface FakeSnapshot {
  domains: Record<string, DomainStateName>;
  volumes: Record<string, string[]>;
}

const tick = () => new Promise<void>((r) => setImmediate(r));
/** The first element of `<metadata>` declaring namespace `uri` (with or without a prefix). */
const namespaceElement = (uri: string): RegExp => new RegExp(`<([A-Za-z_][\\w.:-]*)\\b[^>]*xmlns(?::[\\w.-]+)?="${uri.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[\\s\\S]*?</\\1>`);

/** What DOMAIN_GET_METADATA answers for namespace `uri`: that element of `<metadata>`, or null. */
const elementOf = (xml: string, uri: string): string | null => namespaceElement(uri).exec(/<metadata>([\s\S]*?)<\/metadata>/.exec(xml)?.[1] ?? '')?.[0] ?? null;

const nameOf = (xml: string): string => /<name>([^<]+)<\/name>/.exec(xml)?.[1] ?? '';

export class FakeHost implements LibvirtApi {
  readonly name: string;
  readonly pools = new Map<string, FakePool>();
  readonly domains = new Map<string, FakeDomain>();
  readonly leases = new Map<string, GuestAddress[]>();
  readonly networks: Set<string>;
  /** Networks that exist but are not active (`virsh net-destroy`): their leases are gone too. */
  readonly inactiveNetworks = new Set<string>();
  /** Every call, in order: `op` or `op:arg`. */
  readonly calls: string[] = [];
  /** Pool jobs that overlapped another (should stay empty). */
  readonly overlaps: string[] = [];
  freeMemoryBytes: number;
  kvm: boolean;
  /** libvirt's host UUID: give two fakes the same one, or one fake two entry names, for entries on one hypervisor. */
  uuid: string = randomUUID();
  acpi: boolean;
  autoLease: boolean;
  /** When true, every call fails as if the host were down. */
  down = false;
  agentAddresses = new Map<string, GuestAddress[]>();
  /** The console holder of each domain (the last one opened, possibly already ended). */
  readonly consoles = new Map<string, FakeConsole>();
  private readonly counts = new Map<Op, number>();
  private readonly faults: Array<{ op: Op; nth: number; error: Error }> = [];
  private readonly listeners = new Set<(e: DomainEvent) => void>();
  private readonly ticks: number;
  private nextIp = 10;
  private nextId = 1;

  constructor(options: FakeHostOptions) {
    this.name = options.name;
    for (const p of options.pools ?? [{ name: 'default' }]) this.pools.set(p.name, { name: p.name, active: p.active ?? true, capacityBytes: p.capacityBytes ?? 100 * 1024 ** 3, volumes: new Map() });
    this.networks = new Set(options.networks ?? ['default']);
    this.freeMemoryBytes = options.freeMemoryBytes ?? 8 * 1024 ** 3;
    this.kvm = options.kvm ?? true;
    this.acpi = options.acpi ?? true;
    this.autoLease = options.autoLease ?? true;
    this.ticks = options.ticks ?? 2;
  }

  /** Makes the `nth` call (counted from now, 1-based) of `op` fail with `error`. */
  failOn(op: Op, nth = 1, error: Error = LibvirtError.local(ErrorCode.INTERNAL_ERROR, `injected failure of ${op}`, op)): void {
    this.faults.push({ op, nth: (this.counts.get(op) ?? 0) + nth, error });
  }

  /** How many times `op` was called. */
  count(op: Op): number {
    return this.counts.get(op) ?? 0;
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  snapshot(): FakeSnapshot {
    const domains: FakeSnapshot['domains'] = {};
    for (const d of [...this.domains.values()].sort((a, b) => a.name.localeCompare(b.name))) domains[d.name] = d.state;
    const volumes: FakeSnapshot['volumes'] = {};
    for (const p of this.pools.values()) volumes[p.name] = [...p.volumes.keys()].sort();
    return { domains, volumes };
  }

  /** Adds a volume behind the provider's back (a leftover). */
  addVolume(pool: string, name: string, capacityBytes = 1024, allocationBytes = capacityBytes): void {
    this.pool(pool).volumes.set(name, { name, path: `/fake/${this.name}/${pool}/${name}`, capacityBytes, allocationBytes });
  }

  private async enter(op: Op, arg?: string): Promise<void> {
    const n = (this.counts.get(op) ?? 0) + 1;
    this.counts.set(op, n);
    this.calls.push(arg === undefined ? op : `${op}:${arg}`);
    for (let i = 0; i < this.ticks; i++) await tick();
    if (this.down) throw new Error(`host ${this.name} is down (connection refused)`);
    const fault = this.faults.findIndex((f) => f.op === op && f.nth === n);
    if (fault >= 0) throw this.faults.splice(fault, 1)[0]!.error;
  }

  /** Runs a pool-changing job, refusing (like libvirt) to run two at once on one pool. */
  private async poolJob<T>(op: Op, pool: string, run: (p: FakePool) => Promise<T> | T): Promise<T> {
    const p = this.pool(pool);
    if (!(POOL_CHANGING as readonly string[]).includes(op)) throw new Error(`${op} is not pool-changing`);
    if (p.job) {
      this.overlaps.push(`${op} while ${p.job}`);
      throw LibvirtError.local(ErrorCode.OPERATION_INVALID, `storage pool '${pool}' has asynchronous jobs running (${p.job}).`, op);
    }
    p.job = op;
    try {
      for (let i = 0; i < this.ticks; i++) await tick();
      return await run(p);
    } finally {
      p.job = undefined;
    }
  }

  private pool(name: string): FakePool {
    const p = this.pools.get(name);
    if (!p) throw LibvirtError.local(ErrorCode.NO_STORAGE_POOL, `Storage pool not found: no storage pool with matching name '${name}'`);
    return p;
  }

  private domain(name: string): FakeDomain {
    const d = this.domains.get(name);
    if (!d) throw LibvirtError.local(ErrorCode.NO_DOMAIN, `Domain not found: no domain with matching name '${name}'`);
    return d;
  }

  private emit(domain: string, event: string): void {
    // A stopped domain's console has no tty behind it any more: its stream ends.
    if (event === 'STOPPED' || event === 'UNDEFINED') this.consoles.get(domain)?.end();
    for (const l of this.listeners) l({ domain, event });
  }

  async listDomains(): Promise<DomainInfo[]> {
    await this.enter('listDomains');
    return [...this.domains.values()].map(({ name, xml, state }) => ({ name, xml, state }));
  }

  /** Like libvirt: the XML of a domain that may hold an address, else only the element of `uri` (the namespace declared on it), or null. */
  async listFleetDomains(uri: string): Promise<FleetDomain[]> {
    await this.enter('listFleetDomains');
    return [...this.domains.values()].map(({ name, xml, state }) => (mayHoldAddress(state) ? { name, state, xml } : { name, state, metadata: elementOf(xml, uri) }));
  }

  async getDomain(name: string): Promise<DomainInfo | null> {
    await this.enter('getDomain', name);
    const d = this.domains.get(name);
    return d ? { name: d.name, xml: d.xml, state: d.state } : null;
  }

  async defineDomain(xml: string): Promise<void> {
    await this.enter('defineDomain');
    const name = nameOf(xml);
    if (!name) throw LibvirtError.local(ErrorCode.XML_ERROR, 'missing domain name');
    if (this.domains.has(name)) throw LibvirtError.local(ErrorCode.OPERATION_FAILED, `domain '${name}' already exists`);
    this.domains.set(name, { name, xml, state: 'shutoff' });
    this.emit(name, 'DEFINED');
  }

  async startDomain(name: string): Promise<void> {
    await this.enter('startDomain', name);
    const d = this.domain(name);
    if (d.state === 'running') throw LibvirtError.local(ErrorCode.OPERATION_INVALID, 'domain is already running');
    for (const m of d.xml.matchAll(/<source pool="([^"]+)" volume="([^"]+)"/g)) {
      if (!this.pool(m[1]!).volumes.has(m[2]!)) throw LibvirtError.local(ErrorCode.NO_STORAGE_VOL, `Storage volume not found: no storage vol with matching name '${m[2]}'`);
    }
    d.state = 'running';
    d.id = this.nextId++;
    d.usage = { ...NO_USAGE };
    const mac = /<mac address="([^"]+)"/.exec(d.xml)?.[1];
    const network = /<source network="([^"]+)"/.exec(d.xml)?.[1];
    if (this.autoLease && mac && network) {
      const list = this.leases.get(network) ?? [];
      if (!list.some((l) => l.mac === mac)) list.push({ address: `192.168.122.${this.nextIp++}`, prefix: 24, family: 'ipv4', source: 'lease', mac });
      this.leases.set(network, list);
    }
    this.emit(name, 'STARTED');
  }

  async shutdownDomain(name: string): Promise<void> {
    await this.enter('shutdownDomain', name);
    const d = this.domain(name);
    if (d.state !== 'running') throw LibvirtError.local(ErrorCode.OPERATION_INVALID, 'domain is not running');
    if (this.acpi) {
      setTimeout(() => {
        d.state = 'shutoff';
        this.emit(name, 'STOPPED');
      }, 20);
    }
  }

  async destroyDomain(name: string): Promise<void> {
    await this.enter('destroyDomain', name);
    const d = this.domain(name);
    if (d.state === 'shutoff') throw LibvirtError.local(ErrorCode.OPERATION_INVALID, 'domain is not running');
    d.state = 'shutoff';
    this.emit(name, 'STOPPED');
  }

  /** Like libvirt: the element replaces the one of its namespace in `<metadata>`, stored with the key as its prefix declared; the domain keeps running. */
  async setMetadata(name: string, options: { uri: string; key: string; xml: string }): Promise<void> {
    await this.enter('setMetadata', name);
    const d = this.domain(name);
    const element = options.xml.trim().replace(/^<([A-Za-z_][\w.-]*)/, `<$1 xmlns:${options.key}="${options.uri}"`);
    const ours = namespaceElement(options.uri);
    const [before, rest] = d.xml.split('<metadata>', 2);
    if (rest === undefined) {
      d.xml = d.xml.replace('</domain>', `<metadata>${element}</metadata></domain>`);
      return;
    }
    const [inside, after] = rest.split('</metadata>', 2);
    const kept = (inside ?? '').replace(ours, '');
    d.xml = `${before}<metadata>${kept}${element}</metadata>${after ?? ''}`;
  }

  async undefineDomain(name: string): Promise<void> {
    await this.enter('undefineDomain', name);
    this.domain(name);
    this.domains.delete(name);
    this.emit(name, 'UNDEFINED');
  }

  async poolInfo(pool: string): Promise<PoolInfo> {
    await this.enter('poolInfo', pool);
    const p = this.pool(pool);
    const used = [...p.volumes.values()].reduce((n, v) => n + v.allocationBytes, 0);
    return { name: pool, active: p.active, capacityBytes: p.capacityBytes, availableBytes: p.capacityBytes - used };
  }

  async refreshPool(pool: string): Promise<void> {
    await this.enter('refreshPool', pool);
    await this.poolJob('refreshPool', pool, () => undefined);
  }

  async listVolumes(pool: string): Promise<string[]> {
    await this.enter('listVolumes', pool);
    return [...this.pool(pool).volumes.keys()];
  }

  async getVolume(pool: string, name: string): Promise<VolumeInfo | null> {
    await this.enter('getVolume', name);
    const v = this.pool(pool).volumes.get(name);
    return v ? { ...v } : null;
  }

  async createVolume(pool: string, xml: string): Promise<VolumeInfo> {
    const name = nameOf(xml);
    await this.enter('createVolume', name);
    return this.poolJob('createVolume', pool, (p) => {
      if (p.volumes.has(name)) throw LibvirtError.local(ErrorCode.STORAGE_VOL_EXIST, `storage volume '${name}' exists already`);
      const capacity = Number(/<capacity unit="bytes">(\d+)<\/capacity>/.exec(xml)?.[1] ?? '0');
      const vol: FakeVolume = { name, path: `/fake/${this.name}/${pool}/${name}`, capacityBytes: capacity, allocationBytes: 0 };
      const backing = /<backingStore>\s*<path>([^<]+)<\/path>/.exec(xml)?.[1];
      if (backing) vol.backingPath = backing;
      p.volumes.set(name, vol);
      return { ...vol };
    });
  }

  async volumeChangedAt(pool: string, name: string): Promise<number | undefined> {
    await this.enter('volumeChangedAt', `${pool}/${name}`);
    return this.pool(pool).volumes.get(name)?.changedAt;
  }

  async volumeBackingPath(pool: string, name: string): Promise<string | undefined> {
    await this.enter('volumeBackingPath', `${pool}/${name}`);
    return this.pool(pool).volumes.get(name)?.backingPath;
  }

  async deleteVolume(pool: string, name: string): Promise<void> {
    await this.enter('deleteVolume', name);
    await this.poolJob('deleteVolume', pool, (p) => {
      if (!p.volumes.delete(name)) throw LibvirtError.local(ErrorCode.NO_STORAGE_VOL, `Storage volume not found: no storage vol with matching name '${name}'`);
    });
  }

  async uploadVolume(pool: string, name: string, source: Readable, options: UploadOptions): Promise<void> {
    await this.enter('uploadVolume', name);
    await this.poolJob('uploadVolume', pool, async (p) => {
      const vol = p.volumes.get(name);
      if (!vol) throw LibvirtError.local(ErrorCode.NO_STORAGE_VOL, `Storage volume not found: ${name}`);
      const chunks: Buffer[] = [];
      let done = 0;
      for await (const chunk of source) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        chunks.push(buf);
        done += buf.length;
        options.onProgress?.(done, options.length);
        await tick();
      }
      const data = Buffer.concat(chunks);
      vol.allocationBytes = data.length;
      // Like libvirt's refresh after an upload: a qcow2 header gives the virtual size.
      vol.capacityBytes = data.length >= 32 && data.readUInt32BE(0) === 0x514649fb ? Number(data.readBigUInt64BE(24)) : Math.max(vol.capacityBytes, data.length);
    });
  }

  async createDirPool(name: string, path: string): Promise<void> {
    await this.enter('createDirPool', `${name}:${path}`);
    if (this.pools.has(name)) throw LibvirtError.local(ErrorCode.OPERATION_FAILED, `pool '${name}' already exists`);
    this.pools.set(name, { name, active: true, capacityBytes: 100 * 1024 ** 3, volumes: new Map() });
  }

  async destroyPool(name: string): Promise<void> {
    await this.enter('destroyPool', name);
    this.pool(name);
    this.pools.delete(name);
  }

  async copyVolume(pool: string, xml: string, fromPool: string, fromName: string): Promise<VolumeInfo> {
    const name = nameOf(xml);
    await this.enter('copyVolume', `${fromPool}/${fromName}>${pool}/${name}`);
    const from = this.pool(fromPool).volumes.get(fromName);
    if (!from) throw LibvirtError.local(ErrorCode.NO_STORAGE_VOL, `Storage volume not found: ${fromName}`);
    return this.poolJob('copyVolume', pool, (p) => {
      if (p.volumes.has(name)) throw LibvirtError.local(ErrorCode.STORAGE_VOL_EXIST, `storage volume '${name}' exists already`);
      const vol: FakeVolume = { name, path: `/fake/${this.name}/${pool}/${name}`, capacityBytes: from.capacityBytes, allocationBytes: from.allocationBytes };
      p.volumes.set(name, vol);
      return { ...vol };
    });
  }

  async networkActive(network: string): Promise<boolean> {
    await this.enter('networkActive', network);
    if (!this.networks.has(network)) throw LibvirtError.local(ErrorCode.NO_NETWORK, `Network not found: no network with matching name '${network}'`);
    return !this.inactiveNetworks.has(network);
  }

  async dhcpLeases(network: string, mac?: string): Promise<GuestAddress[]> {
    await this.enter('dhcpLeases', network);
    if (!this.networks.has(network)) throw LibvirtError.local(ErrorCode.NO_NETWORK, `Network not found: no network with matching name '${network}'`);
    return (this.leases.get(network) ?? []).filter((l) => mac === undefined || l.mac === mac).map((l) => ({ ...l }));
  }

  async interfaceAddresses(domain: string, source: AddressSource): Promise<GuestAddress[]> {
    await this.enter('interfaceAddresses', `${domain}:${source}`);
    const d = this.domain(domain);
    if (source === 'agent') {
      const a = this.agentAddresses.get(domain);
      if (!a || d.state !== 'running') throw LibvirtError.local(ErrorCode.AGENT_UNRESPONSIVE, 'Guest agent is not responding: QEMU guest agent is not connected');
      return a;
    }
    if (source === 'arp') throw LibvirtError.local(ErrorCode.INTERNAL_ERROR, 'wrong nlmsg len');
    return [];
  }

  /** The running domain `name` uses CPU and moves packets: its counters grow by `usage`. */
  addUsage(name: string, usage: Partial<FakeUsage>): void {
    const d = this.domain(name);
    if (d.state !== 'running' || !d.usage) throw new Error(`fake domain ${name} is not running`);
    for (const k of Object.keys(NO_USAGE) as Array<keyof FakeUsage>) d.usage[k] += usage[k] ?? 0;
  }

  async domainCounters(): Promise<DomainCounters[]> {
    await this.enter('domainCounters');
    const out: DomainCounters[] = [];
    for (const d of this.domains.values()) if (d.state === 'running' && d.usage && d.id !== undefined) out.push({ name: d.name, id: d.id, ...d.usage });
    return out;
  }

  async freeMemory(): Promise<number> {
    await this.enter('freeMemory');
    return this.freeMemoryBytes;
  }

  async hostUuid(): Promise<string> {
    await this.enter('hostUuid');
    return this.uuid;
  }

  async kvmOffered(): Promise<boolean> {
    await this.enter('kvmOffered');
    return this.kvm;
  }

  async openConsole(domain: string, options: ConsoleOptions): Promise<Duplex> {
    await this.enter('openConsole', domain);
    const d = this.domain(domain);
    if (d.state !== 'running') throw LibvirtError.local(ErrorCode.OPERATION_INVALID, 'Requested operation is not valid: domain is not running');
    const held = this.consoles.get(domain);
    if (held?.open) {
      if (!options.force) throw LibvirtError.local(ErrorCode.OPERATION_FAILED, 'operation failed: Active console session exists for this domain');
      held.end();
    }
    // The stream's callbacks reach the guest side, which needs the stream to exist first.
    const ref: { fake?: FakeConsole } = {};
    const stream = new Duplex({
      allowHalfOpen: false,
      read: () => undefined,
      write: (chunk: Buffer, _encoding, callback) => {
        let n = ref.fake?.writeTicks ?? 1;
        const step = (): void => {
          if (n-- > 0) return void setImmediate(step);
          ref.fake?.received(chunk);
          callback();
        };
        step();
      },
      final: (callback) => {
        ref.fake?.end();
        callback();
      },
    });
    ref.fake = new FakeConsole(domain, stream);
    this.consoles.set(domain, ref.fake);
    return stream;
  }

  async onLifecycle(listener: (event: DomainEvent) => void): Promise<() => Promise<void>> {
    await this.enter('onLifecycle');
    this.listeners.add(listener);
    return async () => {
      this.listeners.delete(listener);
    };
  }
}

/** A qcow2-looking image file's bytes: the magic, version 3, and `virtualSize` at offset 24. */
export function fakeQcow2(virtualSize: number, fileSize = 64 * 1024): Buffer {
  const buf = Buffer.alloc(fileSize);
  buf.writeUInt32BE(0x514649fb, 0);
  buf.writeUInt32BE(3, 4);
  buf.writeBigUInt64BE(BigInt(virtualSize), 24);
  return buf;
}
