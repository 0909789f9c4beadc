/**
 * The KVM provider: launch, list, get, inspect, start, stop, delete and reconcile
 * proxies across the config's hosts. Everything it talks to is injected (libvirt per
 * host, the local image cache, the credentials store, the clock, the readiness probe), so
 * the same code runs in the app, the CLI and the unit tests over an in-memory libvirt.
 */
import type { Strategy } from '../../../../shared/launch-many.js';
import { type LaunchManyOptions, type ManyOutcome, launchMany } from './ops/launch-many.js';
import type { ProxySpec } from '../../../../shared/proxy.js';
import { formatProxyUrl } from '../../../../shared/proxy-url.js';
import { type ProviderContext, type ProviderDeps, type ProxyRecord, createContext, toRecord } from './context.js';
import { PlacementError, ProxyNotFoundError } from './errors.js';
import { type BakeOptions, type BakeResult, bake } from './images/bake.js';
import { type BasePruneReport, type UnusedBase, findUnusedBases, removeUnusedBases } from './images/base-prune.js';
import {
  type FleetListing,
  type ProxyInspection,
  findProxy,
  inspectProxy,
  isRunning,
  listFleet,
  locate,
  nicOf,
} from './fleet.js';
import { reportingEntry } from './hypervisors.js';
import { type LaunchOptions, type LaunchResult, launch } from './ops/launch.js';
import { instanceIds, instanceVolumes } from './names.js';
import { deleteVolumes, removeDomain } from './ops/retire.js';
import { type ReplaceOptions, type ReplaceResult, replaceProxy } from './ops/replace.js';
import { place } from './ops/placement.js';
import { resolveMachineType } from './render.js';
import { collectAddresses, candidates } from './readiness.js';
import { type ReconcileOptions, type ReconcileReport, reconcile } from './ops/reconcile.js';
import { messageOf } from '../../../../shared/errors.js';
import type { Labels, LaunchedBy } from '../../../../shared/fleet-meta.js';
import { type LabelEdit, checkOwnership, editLabels, expiredProxies } from './ops/fleet-ops.js';

export interface StopOptions {
  /** Stop it even when someone else launched it (the caller asked, naming the owner). */
  force?: boolean;
  /** How long the guest gets to power off after the ACPI request before it is destroyed (default 60 s). */
  timeoutMs?: number;
  /** How often the state is looked at while waiting, besides lifecycle events (default 500 ms). */
  pollMs?: number;
}

export interface StopResult {
  /** True when the guest did not shut down in time and was destroyed. */
  forced: boolean;
  /** True when it was not running in the first place. */
  alreadyStopped: boolean;
}

export interface DeleteOptions {
  /** Delete it even when someone else launched it (the caller asked, naming the owner). */
  force?: boolean;
}

/** What `expire` did. */
export interface ExpireReport {
  deleted: Array<{ name: string; host: string; expiresAt: string }>;
  failed: Array<{ name: string; expiresAt: string; error: string }>;
  /** Hosts that could not be listed: their proxies were not judged. */
  unreachable: Array<{ host: string; error: string }>;
}

export interface DeleteResult {
  host: string;
  /** What was removed, in order. */
  removed: string[];
}

export class KvmProvider {
  private readonly ctx: ProviderContext;

  constructor(deps: ProviderDeps) {
    this.ctx = createContext(deps);
  }

  /** Launches a proxy (docs/provider.md); see {@link LaunchOptions}. */
  /** Several proxies in one request, placed by `strategy` up front; one failure keeps the others (launch-many.ts). */
  launchMany(specs: readonly ProxySpec[], strategy: Strategy, options: LaunchManyOptions = {}): Promise<ManyOutcome[]> {
    return launchMany(this.ctx, specs, strategy, options);
  }

  launch(spec: ProxySpec, options: LaunchOptions = {}): Promise<LaunchResult> {
    return launch(this.ctx, spec, options);
  }

  /**
   * Where a launch with these settings would go now, and why (the Launch dialog shows it
   * beside "Automatic"): the same placement the launch runs, touching nothing; with
   * `connected`, only those hosts are asked (the launch itself tries every host). Throws
   * PlacementError when no host can take it, SpecError for an unknown machine type.
   */
  async placement(input: {
    host?: string;
    machineType?: string;
    connected?: ReadonlySet<string>;
  }): Promise<{ host: string; reason: string }> {
    const { machineType } = resolveMachineType(this.ctx.config, input.machineType);
    // A preview asks only hosts that are connected: it must never start connections (a host that keeps failing would be retried on every look).
    const hosts = input.connected
      ? this.ctx.config.hosts.filter((h) => input.connected!.has(h.name))
      : this.ctx.config.hosts;
    if (input.host === undefined && hosts.length === 0)
      throw new PlacementError('no host is connected yet (see Hosts)');
    const chosen = await place({
      hosts: input.host === undefined ? hosts : this.ctx.config.hosts,
      apiFor: this.ctx.apiFor,
      ...(input.host !== undefined ? { host: input.host } : {}),
      diskBytes: machineType.diskGiB * 1024 ** 3,
      memoryBytes: machineType.memoryMiB * 1024 * 1024,
    });
    return { host: chosen.host.name, reason: chosen.reason };
  }

  /**
   * For a lifecycle event seen through host entry `entry` about a proxy whose metadata
   * names `metadataHost`: the entry to report it under, or undefined when another entry on
   * the same hypervisor reports it (hypervisors.ts). The fleet watcher uses it so that an
   * event is shown once, under the proxy's own entry.
   */
  reportingEntry(entry: string, metadataHost: string): { host: string; unknownHost?: string } | undefined {
    return reportingEntry(this.ctx, entry, metadataHost);
  }

  /** Every proxy on every host; hosts that are down are reported in `hosts`. */
  list(): Promise<FleetListing> {
    return listFleet(this.ctx);
  }

  /** One proxy, or undefined when no reachable host has it. */
  async get(name: string): Promise<ProxyRecord | undefined> {
    const found = await findProxy(this.ctx, name);
    return found && toRecord(found.host.name, found.domain, found.metadata);
  }

  /** Parsed metadata, raw domain XML and addresses from every source. */
  inspect(name: string): Promise<ProxyInspection> {
    return inspectProxy(this.ctx, name);
  }

  /**
   * `http://user:pass@address:port` (`socks5://…` for a SOCKS5 proxy) for a running proxy, from its current address (the
   * agent's, else its newest lease: readiness.ts currentAddresses); undefined when it is
   * not running or no source knows one. A stale lease is never offered.
   */
  async proxyUrl(name: string): Promise<string | undefined> {
    const { host, api, domain, metadata } = await locate(this.ctx, name);
    if (!isRunning(domain)) return undefined;
    const report = await collectAddresses(api, host, domain.name, nicOf(domain));
    const address = candidates(report.addresses)[0];
    if (!address) return undefined;
    return formatProxyUrl(address, metadata.port, await this.ctx.credentials.get(name), metadata.kind);
  }

  async start(name: string): Promise<{ alreadyRunning: boolean }> {
    const { api, domain } = await locate(this.ctx, name);
    if (domain.state === 'running' || domain.state === 'blocked') return { alreadyRunning: true };
    await api.startDomain(domain.name);
    return { alreadyRunning: false };
  }

  /** Graceful (ACPI) shutdown; destroyed when the guest has not powered off after `timeoutMs`. */
  async stop(name: string, options: StopOptions = {}): Promise<StopResult> {
    const { api, domain, metadata } = await locate(this.ctx, name);
    checkOwnership(this.ctx, metadata, 'stop', options.force);
    if (domain.state === 'shutoff') return { forced: false, alreadyStopped: true };
    const deadline = this.ctx.now() + (options.timeoutMs ?? 60_000);
    let wake: (() => void) | undefined;
    const unsubscribe = await api
      .onLifecycle((e) => {
        if (e.domain === domain.name) wake?.();
      })
      .catch(() => undefined);
    try {
      await api.shutdownDomain(domain.name);
      for (;;) {
        const now = await api.getDomain(domain.name);
        if (!now || now.state === 'shutoff') return { forced: false, alreadyStopped: false };
        if (this.ctx.now() >= deadline) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(options.pollMs ?? 500, Math.max(0, deadline - this.ctx.now())));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
      await api.destroyDomain(domain.name);
      return { forced: true, alreadyStopped: false };
    } finally {
      await unsubscribe?.().catch(() => undefined);
    }
  }

  /**
   * Destroys, undefines (NVRAM, managed save, snapshot metadata) and deletes the root and
   * seed volumes, then forgets the credentials. The base volume stays: other proxies share it.
   * The proxy is the one on the entry its metadata names (fleet.ts findProxy), and its
   * volumes are the ones its domain XML names, in the pools it names: never looked up in
   * the pool the config says today (docs/provider.md). A proxy whose domain is gone but
   * whose volumes remain is cleaned all the same.
   */
  async delete(name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    const unreachable: string[] = [];
    const found = await findProxy(this.ctx, name, unreachable);
    if (found) {
      checkOwnership(this.ctx, found.metadata, 'delete', options.force);
      const removed = await removeDomain(this.ctx, found);
      // A replacement left half-way (its predecessor gone, or this one its predecessor) goes too: the name is deleted.
      const other = await findProxy(this.ctx, name, [], { replacement: true }).catch(() => undefined);
      if (other && other.domain.name !== found.domain.name) removed.push(...(await removeDomain(this.ctx, other)));
      await this.ctx.credentials.delete(name);
      return { host: found.host.name, removed };
    }
    // No domain: leftovers of a crashed launch may still hold the name's volumes (in the pool the launch used: the entry's).
    for (const host of this.ctx.config.hosts) {
      if (unreachable.some((u) => u.startsWith(`${host.name} `))) continue;
      const api = await this.ctx.apiFor(host.name).catch(() => undefined);
      if (!api) continue;
      const refs = instanceIds(name).flatMap((id) =>
        Object.values(instanceVolumes(id)).map((volume) => ({ pool: host.pool, volume })),
      );
      const removed = await deleteVolumes(this.ctx, host.name, api, refs).catch(() => []);
      if (removed.length) {
        await this.ctx.credentials.delete(name);
        return { host: host.name, removed };
      }
    }
    throw new ProxyNotFoundError(name, unreachable);
  }

  /**
   * Replaces a proxy by a fresh one of the same name, spec, labels and credentials (on
   * `host`, or where it is), ready before the old one is deleted (replace.ts).
   */
  replace(name: string, options: ReplaceOptions = {}): Promise<ReplaceResult> {
    return replaceProxy(this.ctx, name, options);
  }

  /** Who this provider records as the launcher of its proxies (the OS user and workstation). */
  get identity(): LaunchedBy {
    return this.ctx.identity;
  }

  /** Sets and removes labels of a proxy in its metadata, without a restart (fleet-ops.ts). */
  editLabels(name: string, edit: LabelEdit): Promise<{ host: string; labels: Labels; changed: boolean }> {
    return editLabels(this.ctx, name, edit);
  }

  /**
   * Deletes every proxy whose expiry (asked for at its launch) has passed, whoever launched
   * it: the expiry was its owner's own request. A proxy without one is never touched.
   */
  async expire(): Promise<ExpireReport> {
    const listing = await this.list();
    const report: ExpireReport = {
      deleted: [],
      failed: [],
      unreachable: listing.hosts.filter((h) => !h.ok).map((h) => ({ host: h.host, error: h.error ?? 'not reachable' })),
    };
    for (const p of expiredProxies(this.ctx, listing.proxies)) {
      const expiresAt = p.expiresAt!;
      try {
        const r = await this.delete(p.name, { force: true });
        report.deleted.push({ name: p.name, host: r.host, expiresAt });
      } catch (err) {
        report.failed.push({ name: p.name, expiresAt, error: messageOf(err) });
      }
    }
    return report;
  }

  /** Base volumes nothing uses, per hypervisor (base-prune.ts); changes nothing. */
  unusedBases(): Promise<BasePruneReport> {
    return findUnusedBases(this.ctx);
  }

  /** Bakes the image on the host (bake.ts): later launches there back onto the baked base. */
  bake(image: string, host: string, options: BakeOptions = {}): Promise<BakeResult> {
    return bake(this.ctx, image, host, options);
  }

  /** Removes confirmed base volumes that are still unused when judged again. */
  removeBases(confirmed: readonly UnusedBase[]): Promise<{ removed: UnusedBase[]; kept: BasePruneReport['kept'] }> {
    return removeUnusedBases(this.ctx, confirmed);
  }

  /** Reports (and with `fix`, removes) orphan volumes, broken domains and stale credentials. */
  reconcile(options: ReconcileOptions = {}): Promise<ReconcileReport> {
    return reconcile(this.ctx, options);
  }
}
