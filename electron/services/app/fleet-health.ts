/**
 * Health of every ready proxy, probed through the proxy itself every round (30 s, or
 * settings.json's `health.intervalSeconds`; services/health/proxy-probe.ts): at most a few
 * probes in flight per host, each bounded by its timeout, and a proxy whose last probe has
 * not ended is not probed again, so a dead host never piles probes up. A proxy that is
 * shut off (or not started yet), has no address or no credentials here, or whose host is
 * not connected, is unknown (saying which): stopping a proxy is how a person takes it out
 * of service on purpose. A paused or crashed one on a connected host is failing without a
 * probe: it exists to carry traffic and cannot (a domain libvirt paused on a full disk or
 * an I/O error looks just like this), so auto-replace may replace it like any other
 * failing proxy.
 */
import type { Duplex } from 'node:stream';
import type { FleetHealth, LatencyPoint, ProxyHealth } from '../../../shared/health.js';
import type { ProxyCredentials } from '../../../shared/proxy.js';
import { type ProxyKey, proxyKey as key } from '../../../shared/proxy-key.js';
import { type Observation, nextHealth } from '../health/health-state.js';
import { sameHealth } from '../health/health-repeat.js';
import { exitWarnings } from '../health/exit-address.js';
import { LatencyHistory } from '../health/latency-history.js';
import { type ProbeOptions, type ProbeResult, type ProbeTarget, probeProxy } from '../health/proxy-probe.js';
import type { ProxyRecord } from '../provider/kvm/context.js';
import { type AppSettings, DEFAULT_HEALTH_INTERVAL_S, DEFAULT_SLOW_MS } from '../../../shared/app-settings.js';
import { type StatsClock, systemClock } from './fleet-stats.js';

/** Domain states in which a proxy cannot answer, with what health says of them. */
const BROKEN_STATES: Partial<Record<ProxyRecord['state'], string>> = {
  paused: 'the VM is paused: it cannot answer until it is resumed',
  crashed: 'the VM has crashed',
};

/** Whether health calls a proxy in this domain state failing from the state alone (no probe). */
export function isBrokenState(state: ProxyRecord['state']): boolean {
  return BROKEN_STATES[state] !== undefined;
}

export type Probe = (target: ProbeTarget, options: ProbeOptions) => Promise<ProbeResult>;

export interface FleetHealthOptions {
  proxies: () => Iterable<ProxyRecord>;
  /** The hosts connected now. */
  connected: () => ReadonlySet<string>;
  credentials: (name: string) => Promise<ProxyCredentials | undefined>;
  /** Read each round, so a changed settings file applies from the next round. */
  settings: () => Promise<AppSettings['health']>;
  emit?: (health: FleetHealth) => void;
  /** Where this machine cannot reach a host's guests: the stream to a guest's address and port from that host (its SSH connection); undefined: connect from here. */
  tunnelFor?: (host: string) => ((address: string, port: number) => Promise<Duplex>) | undefined;
  probe?: Probe;
  clock?: StatsClock;
  /**
   * Between two rounds, overriding the settings (a command's `--interval`). Without it, the
   * settings' `intervalSeconds` as of the last round read them (default 30 s).
   */
  intervalMs?: number;
  /** Default 10 s. */
  timeoutMs?: number;
  /** Probes in flight per host at most (default {@link DEFAULT_PROBES_PER_HOST}). */
  perHost?: number;
}

/** Probes in flight per host at most, unless `perHost` says otherwise. */
export const DEFAULT_PROBES_PER_HOST = 4;

/** How long a host's finished probes wait for other hosts' before their report goes out. */
export const REPORT_GATHER_MS = 1_000;

export class FleetHealthMonitor {
  private readonly health = new Map<ProxyKey, ProxyHealth>();
  /** Each probed proxy's last hour of latencies (the inspector's chart), dropped with the proxy. */
  private readonly latency = new Map<ProxyKey, LatencyHistory>();
  private readonly probing = new Set<ProxyKey>();
  /** The exit address before the latest echo answer, for each proxy whose latest answer changed it. */
  private readonly exitBefore = new Map<ProxyKey, string>();
  private readonly clock: StatsClock;
  private readonly probe: Probe;
  private cancelTimer: (() => void) | undefined;
  /** A report waiting for more hosts' probes to end (reportSoon). */
  private cancelReport: (() => void) | undefined;
  private closed = false;
  private at = 0;
  /** The settings' pace as of the last time they were read (undefined: the default). */
  private settingsIntervalMs: number | undefined;

  constructor(private readonly options: FleetHealthOptions) {
    this.clock = options.clock ?? systemClock;
    this.probe = options.probe ?? ((t, o) => probeProxy(t, o));
  }

  /**
   * The first round after one interval, then one every interval. The settings are read at
   * once too: a pace other than the default moves the first round to it.
   */
  start(): void {
    this.schedule();
    if (this.options.intervalMs !== undefined) return;
    void this.options.settings().then(
      (s) => {
        const before = this.intervalMs();
        this.adoptPace(s);
        if (this.intervalMs() !== before && !this.closed) {
          this.cancelTimer?.();
          this.schedule();
        }
      },
      () => undefined,
    );
  }

  /** Between two rounds now. */
  intervalMs(): number {
    return this.options.intervalMs ?? this.settingsIntervalMs ?? DEFAULT_HEALTH_INTERVAL_S * 1000;
  }

  private adoptPace(settings: AppSettings['health']): void {
    this.settingsIntervalMs = settings.intervalSeconds === undefined ? undefined : settings.intervalSeconds * 1000;
  }

  snapshot(): FleetHealth {
    return { at: this.at, proxies: [...this.health.values()] };
  }

  /** One proxy's probe latencies over the last hour, oldest first (null: no answer); empty when never probed. */
  latencyHistory(host: string, domain: string): LatencyPoint[] {
    return this.latency.get(key(host, domain))?.recent(this.clock.now()) ?? [];
  }

  /**
   * One round now; resolves when its probes have ended. Rounds may overlap (a slow host's
   * probes outlast the interval): a proxy still being probed is left out of the next one.
   */
  check(): Promise<FleetHealth> {
    return this.runRound();
  }

  close(): void {
    this.closed = true;
    this.cancelTimer?.();
    this.cancelReport?.();
    this.cancelReport = undefined;
  }

  private schedule(): void {
    if (this.closed) return;
    this.cancelTimer = this.clock.schedule(() => {
      // Not awaited: one host's slow probes must not hold up the next round of the others.
      // The next round is set once this one has read the settings, at the pace they give.
      void this.runRound(() => this.schedule()).catch(() => undefined);
    }, this.intervalMs());
  }

  /** One round; `settingsRead` is called once the settings were read (or could not be). */
  private async runRound(settingsRead?: () => void): Promise<FleetHealth> {
    let settings: AppSettings['health'];
    try {
      settings = await this.options.settings();
      this.adoptPace(settings);
    } finally {
      settingsRead?.();
    }
    const connected = this.options.connected();
    const known = new Set<ProxyKey>();
    const byHost = new Map<string, ProxyRecord[]>();
    for (const p of this.options.proxies()) {
      const k = key(p.host, p.id);
      known.add(k);
      // A host that is not connected first: the states it last reported may be stale.
      const broken = connected.has(p.host) ? BROKEN_STATES[p.state] : undefined;
      const why = !connected.has(p.host)
        ? `host ${p.host} is not connected`
        : p.state !== 'running'
          ? 'not running'
          : !p.addresses[0]
            ? 'no address yet'
            : undefined;
      if (broken) this.observe(p, { failing: broken });
      else if (why) this.observe(p, { unknown: why });
      else if (!this.probing.has(k)) {
        // Appended in place: copying the host's list for each proxy was quadratic in the fleet.
        const list = byHost.get(p.host);
        if (list) list.push(p);
        else byHost.set(p.host, [p]);
      }
    }
    for (const k of this.health.keys()) if (!known.has(k)) this.health.delete(k);
    for (const k of this.latency.keys()) if (!known.has(k)) this.latency.delete(k);
    for (const k of this.exitBefore.keys()) if (!known.has(k)) this.exitBefore.delete(k);
    const target = settings.echoUrl ?? settings.checkUrl;
    const options: ProbeOptions = {
      timeoutMs: this.options.timeoutMs ?? 10_000,
      ...(target ? { url: target } : {}),
      ...(settings.echoUrl ? { echo: true } : {}),
    };
    const slowMs = settings.slowMs ?? DEFAULT_SLOW_MS;
    // The unknown ones go out at once; probed hosts' figures as their probes end (see reportSoon).
    if (!byHost.size) return this.report();
    let left = byHost.size;
    await Promise.all(
      [...byHost.values()].map((list) =>
        this.probeHost(list, options, slowMs).then(() => this.reportSoon(--left === 0)),
      ),
    );
    return this.snapshot();
  }

  /**
   * A host's probes have ended: its figures go out within {@link REPORT_GATHER_MS}, with
   * those of any other host that ends meanwhile, and at once when it was the round's last.
   * Hosts of the same size end together: one report of the whole fleet then, not one per
   * host (each is every proxy's health, serialised for every window).
   */
  private reportSoon(last: boolean): void {
    if (last) {
      this.cancelReport?.();
      this.cancelReport = undefined;
      this.report();
      return;
    }
    this.cancelReport ??= this.clock.schedule(() => {
      this.cancelReport = undefined;
      this.report();
    }, REPORT_GATHER_MS);
  }

  private report(): FleetHealth {
    this.at = this.clock.now();
    this.markExits();
    const out = this.snapshot();
    if (!this.closed) this.options.emit?.(out);
    return out;
  }

  /** Probes one host's proxies, at most `perHost` at a time. */
  private async probeHost(list: ProxyRecord[], options: ProbeOptions, slowMs: number): Promise<void> {
    const queue = [...list];
    const worker = async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        const k = key(p.host, p.id);
        this.probing.add(k);
        try {
          const credentials = await this.options.credentials(p.name).catch(() => undefined);
          const address = p.addresses[0]!.address;
          const tunnel = this.options.tunnelFor?.(p.host);
          const result = await this.probe(
            {
              address,
              port: p.port,
              ...(p.kind ? { kind: p.kind } : {}),
              ...(credentials ? { credentials } : {}),
              ...(tunnel ? { tunnel: () => tunnel(address, p.port) } : {}),
            },
            options,
          );
          this.observe(p, { probe: result }, slowMs);
        } finally {
          this.probing.delete(k);
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.options.perHost ?? DEFAULT_PROBES_PER_HOST, queue.length) }, worker),
    );
  }

  /** Sets or clears every proxy's exit warning from the exits seen now (services/health/exit-address.ts). */
  private markExits(): void {
    // No exit address seen and no warning standing (no echo URL set): nothing to set or clear.
    let any = this.exitBefore.size > 0;
    if (!any) {
      for (const h of this.health.values()) {
        if (h.exitAddress || h.exitWarning) {
          any = true;
          break;
        }
      }
    }
    if (!any) return;
    const list = [...this.health.entries()].map(([k, h]) => ({
      key: k,
      host: h.host,
      seen: {
        ...(h.exitAddress ? { current: h.exitAddress } : {}),
        ...(this.exitBefore.has(k) ? { previous: this.exitBefore.get(k)! } : {}),
      },
    }));
    for (const [k, warning] of exitWarnings(list)) {
      const h = this.health.get(k)!;
      if (h.exitWarning === warning) continue;
      // A new record, not a change to the old one: a report already sent may hold the old one (health-repeat.ts compares by identity first).
      const { exitWarning: _old, ...rest } = h;
      this.health.set(k, warning ? { ...rest, exitWarning: warning } : rest);
    }
  }

  private observe(p: ProxyRecord, seen: Observation, slowMs = DEFAULT_SLOW_MS): void {
    const k = key(p.host, p.id);
    const now = this.clock.now();
    const before = this.health.get(k)?.exitAddress;
    const echoed = 'probe' in seen ? seen.probe.exitAddress : undefined;
    // A changed exit stays flagged until an answer shows the same address again.
    if (echoed && before && echoed !== before) this.exitBefore.set(k, before);
    else if (echoed) this.exitBefore.delete(k);
    const prev = this.health.get(k);
    // Still unknown for the same reason (a stopped proxy, round after round): nothing to work out or keep.
    if ('unknown' in seen && prev?.state === 'unknown' && prev.lastError === seen.unknown && prev.name === p.name)
      return;
    const next = nextHealth({ host: p.host, domain: p.id, name: p.name }, prev, seen, now, slowMs);
    // Unchanged (a stopped proxy, round after round): the same record stays, so the report's
    // comparison with the last one sent (health-repeat.ts) ends at its identity.
    if (!prev || !sameHealth(prev, next)) this.health.set(k, next);
    if ('probe' in seen) {
      let history = this.latency.get(k);
      if (!history) this.latency.set(k, (history = new LatencyHistory()));
      history.add(now, seen.probe.ok ? seen.probe.latencyMs : null);
    }
  }
}
