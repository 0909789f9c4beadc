/**
 * An in-memory libvirt host implementing the provider's {@link LibvirtApi}, for unit
 * tests. It behaves like libvirt where the provider's correctness depends on it: names
 * are unique, a domain starts only when its volumes exist, a pool refuses a second
 * pool-changing job while one runs (so missing serialisation fails loudly), and any
 * operation can be made to fail on its Nth call (fault injection).
 *
 * Domains, networks and consoles are here; the call machinery (log, faults, latency) and
 * the pools and volumes are its base, FakeStorageHost (fake-libvirt-storage.ts), and the
 * guest's side of a console is FakeConsole (fake-console.ts).
 */
import { randomUUID } from 'node:crypto';
import { Duplex } from 'node:stream';
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
} from '../../electron/services/provider/kvm/libvirt-api.js';
import { FakeConsole } from './fake-console.js';
import { type FakeHostOptions, FakeStorageHost, nameOf } from './fake-libvirt-storage.js';

export { FakeConsole } from './fake-console.js';
export { type FakeHostOptions, fakeQcow2 } from './fake-libvirt-storage.js';

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

/** The objects a host holds: what tests compare before and after. */
export interface FakeSnapshot {
  domains: Record<string, DomainStateName>;
  volumes: Record<string, string[]>;
}

/** The first element of `<metadata>` declaring namespace `uri` (with or without a prefix). */
const namespaceElement = (uri: string): RegExp =>
  new RegExp(
    `<([A-Za-z_][\\w.:-]*)\\b[^>]*xmlns(?::[\\w.-]+)?="${uri.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[\\s\\S]*?</\\1>`,
  );

/** What DOMAIN_GET_METADATA answers for namespace `uri`: that element of `<metadata>`, or null. */
const elementOf = (xml: string, uri: string): string | null =>
  namespaceElement(uri).exec(/<metadata>([\s\S]*?)<\/metadata>/.exec(xml)?.[1] ?? '')?.[0] ?? null;

export class FakeHost extends FakeStorageHost implements LibvirtApi {
  readonly domains = new Map<string, FakeDomain>();
  readonly leases = new Map<string, GuestAddress[]>();
  readonly networks: Set<string>;
  /** Networks that exist but are not active (`virsh net-destroy`): their leases are gone too. */
  readonly inactiveNetworks = new Set<string>();
  freeMemoryBytes: number;
  kvm: boolean;
  /** libvirt's host UUID: give two fakes the same one, or one fake two entry names, for entries on one hypervisor. */
  uuid: string = randomUUID();
  acpi: boolean;
  autoLease: boolean;
  agentAddresses = new Map<string, GuestAddress[]>();
  /** The console holder of each domain (the last one opened, possibly already ended). */
  readonly consoles = new Map<string, FakeConsole>();
  private readonly listeners = new Set<(e: DomainEvent) => void>();
  private nextIp = 10;
  private nextId = 1;

  constructor(options: FakeHostOptions) {
    super(options);
    this.networks = new Set(options.networks ?? ['default']);
    this.freeMemoryBytes = options.freeMemoryBytes ?? 8 * 1024 ** 3;
    this.kvm = options.kvm ?? true;
    this.acpi = options.acpi ?? true;
    this.autoLease = options.autoLease ?? true;
  }

  snapshot(): FakeSnapshot {
    const domains: FakeSnapshot['domains'] = {};
    for (const d of [...this.domains.values()].sort((a, b) => a.name.localeCompare(b.name))) domains[d.name] = d.state;
    const volumes: FakeSnapshot['volumes'] = {};
    for (const p of this.pools.values()) volumes[p.name] = [...p.volumes.keys()].sort();
    return { domains, volumes };
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
    return [...this.domains.values()].map(({ name, xml, state }) =>
      mayHoldAddress(state) ? { name, state, xml } : { name, state, metadata: elementOf(xml, uri) },
    );
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
      if (!this.pool(m[1]!).volumes.has(m[2]!))
        throw LibvirtError.local(
          ErrorCode.NO_STORAGE_VOL,
          `Storage volume not found: no storage vol with matching name '${m[2]}'`,
        );
    }
    d.state = 'running';
    d.id = this.nextId++;
    d.usage = { ...NO_USAGE };
    const mac = /<mac address="([^"]+)"/.exec(d.xml)?.[1];
    const network = /<source network="([^"]+)"/.exec(d.xml)?.[1];
    if (this.autoLease && mac && network) {
      const list = this.leases.get(network) ?? [];
      if (!list.some((l) => l.mac === mac))
        list.push({ address: `192.168.122.${this.nextIp++}`, prefix: 24, family: 'ipv4', source: 'lease', mac });
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
  async networkActive(network: string): Promise<boolean> {
    await this.enter('networkActive', network);
    if (!this.networks.has(network))
      throw LibvirtError.local(ErrorCode.NO_NETWORK, `Network not found: no network with matching name '${network}'`);
    return !this.inactiveNetworks.has(network);
  }

  async dhcpLeases(network: string, mac?: string): Promise<GuestAddress[]> {
    await this.enter('dhcpLeases', network);
    if (!this.networks.has(network))
      throw LibvirtError.local(ErrorCode.NO_NETWORK, `Network not found: no network with matching name '${network}'`);
    return (this.leases.get(network) ?? []).filter((l) => mac === undefined || l.mac === mac).map((l) => ({ ...l }));
  }

  async interfaceAddresses(domain: string, source: AddressSource): Promise<GuestAddress[]> {
    await this.enter('interfaceAddresses', `${domain}:${source}`);
    const d = this.domain(domain);
    if (source === 'agent') {
      const a = this.agentAddresses.get(domain);
      if (!a || d.state !== 'running')
        throw LibvirtError.local(
          ErrorCode.AGENT_UNRESPONSIVE,
          'Guest agent is not responding: QEMU guest agent is not connected',
        );
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
    for (const d of this.domains.values())
      if (d.state === 'running' && d.usage && d.id !== undefined) out.push({ name: d.name, id: d.id, ...d.usage });
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
    if (d.state !== 'running')
      throw LibvirtError.local(ErrorCode.OPERATION_INVALID, 'Requested operation is not valid: domain is not running');
    const held = this.consoles.get(domain);
    if (held?.open) {
      if (!options.force)
        throw LibvirtError.local(
          ErrorCode.OPERATION_FAILED,
          'operation failed: Active console session exists for this domain',
        );
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
