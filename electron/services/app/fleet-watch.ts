/**
 * The fleet as one backend sees it change: host status changes forwarded as `host:status`,
 * libvirt lifecycle events per connected host reported as `proxy:changed` with the proxy as
 * it is now, and a slow background re-listing that catches what no event said (another
 * client, a lost event). The records last seen are kept so that a removal still names its
 * proxy and a re-listing reports only what changed.
 */
import type { EventName, EventPayload } from '../../../shared/ipc.js';
import { type ProxyChanged, type ProxyEvent, LifecycleEventSchema } from '../../../shared/proxy-changed.js';
import { type ProxyKey, proxyKey as key } from '../../../shared/proxy-key.js';
import { type ProxyRecord, toRecord } from '../provider/kvm/context.js';
import type { FleetListing } from '../provider/kvm/fleet.js';
import type { DomainEvent, LibvirtApi } from '../provider/kvm/libvirt-api.js';
import { parseInstanceMetadata } from '../provider/kvm/xml/metadata.js';
import { instanceId } from '../provider/kvm/names.js';
import type { FleetAssembly } from './fleet-assembly.js';
import { sameJson } from './same-json.js';

/** Any event of the contract, as one subscriber sees it. */
export type AppEventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** The records seen, by proxy key (shared/proxy-key.ts). */
export type SeenRecords = Map<ProxyKey, ProxyRecord>;

export interface FleetWatchOptions {
  backend: FleetAssembly;
  emit: AppEventListener;
  /**
   * What the backend a config change closed had seen: hosts still in the config keep it,
   * so that a removal right after an edit still names its domain.
   */
  inherited?: SeenRecords;
  /** How often the fleet is listed again in the background (0 turns it off). */
  reconcileIntervalMs: number;
}

/** A lifecycle event's name as the contract has it: the client names a value newer than its table UNKNOWN, and so does this. */
function lifecycleEvent(name: string): ProxyEvent {
  return LifecycleEventSchema.safeParse(name).data ?? 'UNKNOWN';
}

export class FleetWatch {
  /** Proxy key → the record last seen (background re-listing compares against it). */
  readonly seen: SeenRecords = new Map();
  private readonly backend: FleetAssembly;
  private readonly emit: AppEventListener;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly lifecycle = new Map<string, { api: LibvirtApi; off: Promise<(() => Promise<void>) | undefined> }>();
  private readonly timer: NodeJS.Timeout | undefined;
  /** Hosts whose connection was lost: when each is back, what happened meanwhile is listed. */
  private readonly lost = new Set<string>();

  constructor(options: FleetWatchOptions) {
    this.backend = options.backend;
    this.emit = options.emit;
    const { backend, inherited } = options;
    if (inherited) {
      // Hosts still in the config keep what was known of them (a removed host's proxies are
      // no longer this app's to follow); a listing then brings it up to date, reporting what
      // changed while no backend was watching, or on a host whose entry now reaches elsewhere.
      const hosts = new Set(backend.config.hosts.map((h) => h.name));
      for (const [k, p] of inherited) if (hosts.has(p.host)) this.seen.set(k, p);
      void this.relist();
    }
    this.unsubscribe.push(
      backend.hosts.onStatus((status) => {
        this.emit('host:status', status);
        if (status.state === 'reconnecting') this.lost.add(status.name);
        if (status.state === 'connected') {
          // Back after a lost connection: events are subscribed again on the new connection, then
          // one listing reports what no event could say while it was down (started, stopped, gone).
          void this.watchLifecycle(status.name).then(() => {
            if (this.lost.delete(status.name)) void this.relist();
          });
        }
      }),
    );
    for (const status of backend.hosts.statuses())
      if (status.state === 'connected') void this.watchLifecycle(status.name);
    if (options.reconcileIntervalMs > 0) {
      this.timer = setInterval(() => void this.relist(), options.reconcileIntervalMs);
      this.timer.unref();
    }
  }

  /** Records a proxy as it is now and reports it (`event`: the lifecycle event, or what the app did). */
  changed(proxy: ProxyRecord, event: ProxyEvent): void {
    this.seen.set(key(proxy.host, proxy.id), proxy);
    const payload: ProxyChanged = {
      host: proxy.host,
      domain: proxy.id,
      name: proxy.name,
      event,
      removed: false,
      proxy,
    };
    this.emit('proxy:changed', payload);
  }

  /**
   * Reports a proxy the app deleted. The delete says where it was (`host`, when it knows);
   * its domain is named after it. Neither needs the proxy to have been seen by this backend
   * (a config edit rebuilds it).
   */
  deleted(name: string, host: string | undefined, domain?: string): void {
    const gone = [...this.seen.values()].find(
      (p) => p.name === name && (host === undefined || p.host === host) && (domain === undefined || p.id === domain),
    );
    const removed = { host: host ?? gone?.host ?? '', domain: domain ?? gone?.id ?? instanceId(name) };
    this.seen.delete(key(removed.host, removed.domain));
    this.emit('proxy:changed', { ...removed, name, event: 'DELETED', removed: true });
  }

  /** Takes a listing as the records seen on every host it reached. */
  remember(listing: FleetListing): void {
    const reachable = new Set(listing.hosts.filter((h) => h.ok).map((h) => h.host));
    for (const [k, p] of this.seen) if (reachable.has(p.host)) this.seen.delete(k);
    for (const p of listing.proxies) this.seen.set(key(p.host, p.id), p);
  }

  /** Stops the timer and every subscription (the backend's connections are its owner's to close). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const off of this.unsubscribe) off();
    await Promise.all([...this.lifecycle.values()].map((l) => l.off.then((off) => off?.()).catch(() => undefined)));
  }

  /** Subscribes to one host's lifecycle events (again when its connection, and so its API object, changed). */
  private async watchLifecycle(host: string): Promise<void> {
    let api: LibvirtApi;
    try {
      api = await this.backend.apiFor(host);
    } catch {
      return; // its status says why
    }
    const current = this.lifecycle.get(host);
    if (current?.api === api) return;
    void current?.off.then((off) => off?.().catch(() => undefined));
    const off = api.onLifecycle((e) => void this.onLifecycle(host, api, e)).catch(() => undefined);
    this.lifecycle.set(host, { api, off });
  }

  private async onLifecycle(host: string, api: LibvirtApi, event: DomainEvent): Promise<void> {
    const known = this.seen.get(key(host, event.domain));
    const domain = await api.getDomain(event.domain).catch(() => null);
    let metadata;
    try {
      metadata = domain ? parseInstanceMetadata(domain.xml) : undefined;
    } catch {
      metadata = undefined; // unreadable metadata: the listing reports it
    }
    if (!metadata && !known) return; // not one of ours
    if (domain && metadata) {
      // Every entry on a hypervisor sees its events: the proxy is reported under its own entry only (docs/provider.md).
      const where = this.backend.provider.reportingEntry(host, metadata.host);
      if (!where) return;
      const mine = where.host === host ? known : this.seen.get(key(where.host, event.domain));
      this.changed(
        toRecord(where.host, domain, metadata, mine?.addresses ?? [], where.unknownHost),
        lifecycleEvent(event.event),
      );
    } else {
      this.seen.delete(key(host, event.domain));
      this.emit('proxy:changed', {
        host,
        domain: event.domain,
        ...(known ? { name: known.name } : {}),
        event: lifecycleEvent(event.event),
        removed: true,
      });
    }
  }

  /**
   * The background re-listing: reports what changed without a lifecycle event (another
   * client, a lost event). A proxy that an event changed while the listing was on its way
   * is left as the event put it: the event is newer than the listing.
   */
  private async relist(): Promise<void> {
    const before = new Map(this.seen);
    let listing: FleetListing;
    try {
      listing = await this.backend.provider.list();
    } catch {
      return;
    }
    const changedMeanwhile = (k: ProxyKey) => this.seen.get(k) !== before.get(k);
    const reachable = new Set(listing.hosts.filter((h) => h.ok).map((h) => h.host));
    for (const proxy of listing.proxies) {
      const k = key(proxy.host, proxy.id);
      const old = before.get(k);
      const skip = changedMeanwhile(k);
      before.delete(k);
      if (skip) continue;
      if (!old || !sameJson(old, proxy)) this.changed(proxy, 'RECONCILED');
    }
    for (const [k, gone] of before) {
      if (!reachable.has(gone.host) || changedMeanwhile(k)) continue; // unknown, not gone; or an event said otherwise
      this.seen.delete(k);
      this.emit('proxy:changed', {
        host: gone.host,
        domain: gone.id,
        name: gone.name,
        event: 'RECONCILED',
        removed: true,
      });
    }
  }
}
