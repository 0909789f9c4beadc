/**
 * The fleet's traffic and load, sampled from the hosts: one CONNECT_GET_ALL_DOMAIN_STATS
 * call per connected host each round (every 5 s while someone watches, 60 s otherwise),
 * turned into rates per proxy (services/stats/rates.ts) and a bounded history in memory
 * (services/stats/rate-history.ts), never written anywhere. A host whose last call has not
 * answered is skipped rather than asked again, and a call that takes longer than its
 * timeout counts as failed: a dead host never piles calls up.
 */
import type { FleetStats, ProxyRef, ProxyStats, ProxyTotals } from '../../../shared/stats.js';
import { messageOf } from '../../../shared/errors.js';
import { type ProxyKey, proxyKey as key } from '../../../shared/proxy-key.js';
import type { ProxyRecord } from '../provider/kvm/context.js';
import type { DomainCounters, LibvirtApi } from '../provider/kvm/libvirt-api.js';
import { RateHistory } from '../stats/rate-history.js';
import { type Rates, type Reading, ratesBetween } from '../stats/rates.js';

/** Time as the sampler sees it: injected so that tests drive the cadence. */
export interface StatsClock {
  now(): number;
  /** Runs `fn` after `ms`; returns what cancels it. */
  schedule(fn: () => void, ms: number): () => void;
}

/** The process's clock; its timers do not keep the process alive. */
export const systemClock: StatsClock = {
  now: () => Date.now(),
  schedule: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};

export interface FleetStatsOptions {
  /** The hosts to ask now (the connected ones: a host that is down is its connection's to retry). */
  hosts: () => string[];
  apiFor: (host: string) => Promise<LibvirtApi>;
  /** The proxies known now: a domain that is not one of them is not ours and is not reported. */
  proxies: () => Iterable<ProxyRecord>;
  /** Called with the figures after every sample. */
  emit?: (stats: FleetStats) => void;
  clock?: StatsClock;
  /** Default 5 s. */
  watchIntervalMs?: number;
  /** Default 60 s. */
  idleIntervalMs?: number;
  /** How long one host's stats call may take before that host counts as failed for the round (default 10 s). */
  callTimeoutMs?: number;
}

interface Entry {
  host: string;
  domain: string;
  name: string;
  last?: Reading | undefined;
  rates: Rates | null;
  /** Whether {@link last} was read in the latest sample (its counters are then the proxy's totals now). */
  fresh: boolean;
  history: RateHistory;
  /** The row last reported: reported again, the same object, while it has no figures (a stopped proxy, sample after sample). */
  row?: ProxyStats;
  /** The sample that last met this proxy (one not met is gone). */
  met: number;
}

/** A reading's counters as totals: in is into the VM (rx as the domain sees it). */
function totalsOf(c: DomainCounters): ProxyTotals {
  return {
    inBytes: c.rxBytes,
    outBytes: c.txBytes,
    inPackets: c.rxPackets,
    outPackets: c.txPackets,
    cpuSeconds: c.cpuTimeNs / 1e9,
  };
}

export class FleetStatsSampler {
  private readonly clock: StatsClock;
  private readonly watchIntervalMs: number;
  private readonly idleIntervalMs: number;
  private readonly callTimeoutMs: number;
  private readonly entries = new Map<ProxyKey, Entry>();
  /** Entries by the record they were last met with: a proxy whose record did not change is found without building its key. */
  private readonly byRecord = new WeakMap<ProxyRecord, Entry>();
  private samples = 0;
  /** Hosts whose stats call has not answered yet. */
  private readonly inFlight = new Set<string>();
  private watchers = 0;
  private leaseUntil = 0;
  private cancelTimer: (() => void) | undefined;
  private sampling: Promise<FleetStats> | undefined;
  private closed = false;
  private latest: FleetStats;

  constructor(private readonly options: FleetStatsOptions) {
    this.clock = options.clock ?? systemClock;
    this.watchIntervalMs = options.watchIntervalMs ?? 5_000;
    this.idleIntervalMs = options.idleIntervalMs ?? 60_000;
    this.callTimeoutMs = options.callTimeoutMs ?? 10_000;
    this.latest = { at: 0, intervalMs: this.intervalMs, failedHosts: [], proxies: [] };
  }

  /** True while a watcher or an unexpired lease asks for the fast cadence. */
  get watching(): boolean {
    return this.watchers > 0 || this.clock.now() < this.leaseUntil;
  }

  get intervalMs(): number {
    return this.watching ? this.watchIntervalMs : this.idleIntervalMs;
  }

  /** Starts sampling: at once when someone already watches, else after the idle interval (a watcher brings it forward). */
  start(): void {
    this.scheduleNext(this.watching ? 0 : this.idleIntervalMs);
  }

  /** Asks for the fast cadence until the returned function is called (an in-process viewer: `proxies top`). */
  watch(): () => void {
    this.watchers++;
    this.hurry();
    let released = false;
    return () => {
      if (!released) this.watchers--;
      released = true;
    };
  }

  /** Asks for the fast cadence for `ms` more (a window renews it while it shows the figures). */
  renew(ms: number): void {
    this.leaseUntil = Math.max(this.leaseUntil, this.clock.now() + ms);
    this.hurry();
  }

  /**
   * The figures of the last sample; with `history`, each proxy's last hour too (its newest
   * `historyPoints` only, when given); with `sparkPoints`, each proxy's total rate of its
   * newest points (a table's sparklines need one number a point, for minutes, not the
   * hour); with `historyOf`, that one proxy's whole hour.
   */
  snapshot(
    options: { history?: boolean; historyPoints?: number; sparkPoints?: number; historyOf?: ProxyRef } = {},
  ): FleetStats {
    const { history, historyOf, historyPoints, sparkPoints } = options;
    if (!history && !historyOf && !sparkPoints) return { ...this.latest, intervalMs: this.intervalMs };
    const now = this.clock.now();
    const isOf = (p: ProxyStats) => p.host === historyOf?.host && p.domain === historyOf.domain;
    const proxies = this.latest.proxies.map((p) => {
      const of = isOf(p);
      if (!history && !of && !sparkPoints) return p;
      const kept = this.entries.get(key(p.host, p.domain))?.history;
      return {
        ...p,
        ...(history || of ? { history: kept?.recent(now, of ? undefined : historyPoints) ?? [] } : {}),
        ...(sparkPoints ? { spark: kept?.recentTotals(now, sparkPoints) ?? [] } : {}),
      };
    });
    return { ...this.latest, intervalMs: this.intervalMs, proxies };
  }

  /** Takes one sample now (joining one under way) and reports it. */
  sample(): Promise<FleetStats> {
    this.sampling ??= this.takeSample().finally(() => (this.sampling = undefined));
    return this.sampling;
  }

  close(): void {
    this.closed = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  /** A new watcher should not wait out the idle interval: sample as soon as the fast cadence allows. */
  private hurry(): void {
    if (this.closed || this.sampling || !this.cancelTimer) return; // a sample under way schedules the next itself
    this.scheduleNext(Math.max(0, this.latest.at + this.watchIntervalMs - this.clock.now()));
  }

  private scheduleNext(ms: number): void {
    this.cancelTimer?.();
    if (this.closed) return;
    this.cancelTimer = this.clock.schedule(() => {
      this.cancelTimer = undefined;
      void this.sample().finally(() => this.scheduleNext(this.intervalMs));
    }, ms);
  }

  private async takeSample(): Promise<FleetStats> {
    const at = this.clock.now();
    const hosts = this.options.hosts();
    const answers = await Promise.all(hosts.map(async (host) => ({ host, result: await this.countersOf(host) })));
    const counters = new Map<string, Map<string, DomainCounters>>();
    const failedHosts: FleetStats['failedHosts'] = [];
    for (const { host, result } of answers) {
      if (result instanceof Map) counters.set(host, result);
      else failedHosts.push({ host, error: result.error });
    }
    const met = ++this.samples;
    const proxies: ProxyStats[] = [];
    for (const p of this.options.proxies()) {
      let entry = this.byRecord.get(p);
      if (!entry) {
        const k = key(p.host, p.id);
        entry = this.entries.get(k);
        if (!entry)
          this.entries.set(
            k,
            (entry = {
              host: p.host,
              domain: p.id,
              name: p.name,
              rates: null,
              fresh: false,
              history: new RateHistory(),
              met,
            }),
          );
        this.byRecord.set(p, entry);
      }
      entry.met = met;
      entry.name = p.name;
      this.update(entry, at, counters.get(p.host));
      const totals = entry.fresh && entry.last ? totalsOf(entry.last.counters) : undefined;
      const row = entry.row;
      // No figures now nor before, same name: the row sent last time says it all (and is not copied again).
      if (!totals && entry.rates === null && row && row.rates === null && !row.totals && row.name === entry.name)
        proxies.push(row);
      else
        proxies.push(
          (entry.row = {
            host: entry.host,
            domain: entry.domain,
            name: entry.name,
            rates: entry.rates,
            ...(totals ? { totals } : {}),
          }),
        );
    }
    // A proxy no longer known (deleted, its host removed) takes its history with it.
    // forEach: a for-of over the map made a [key, entry] pair per proxy, every sample.
    this.entries.forEach((entry, k) => {
      if (entry.met !== met) this.entries.delete(k);
    });
    this.latest = { at, intervalMs: this.intervalMs, failedHosts, proxies };
    this.options.emit?.(this.latest);
    return this.latest;
  }

  /** One proxy's entry after a sample; `host` is its host's counters by domain, undefined when the host did not answer. */
  private update(entry: Entry, at: number, host: Map<string, DomainCounters> | undefined): void {
    entry.fresh = false;
    if (!host) {
      entry.rates = null; // unknown now; the last reading stays, so the next answer gives the rate over the gap
      return;
    }
    const counters = host.get(entry.domain);
    if (!counters) {
      // Not running: no rate, and the next run starts from its own first reading.
      entry.rates = null;
      entry.last = undefined;
      return;
    }
    const reading = { at, counters };
    const rates = entry.last ? ratesBetween(entry.last, reading) : undefined;
    if (rates && entry.last) entry.history.add(at, rates, at - entry.last.at);
    entry.rates = rates ?? null;
    entry.last = reading;
    entry.fresh = true;
  }

  /** A host's counters by domain, or why there are none this round. */
  private async countersOf(host: string): Promise<Map<string, DomainCounters> | { error: string }> {
    if (this.inFlight.has(host)) return { error: 'its previous stats call has not answered yet' };
    this.inFlight.add(host);
    const call = this.options
      .apiFor(host)
      .then((api) => api.domainCounters())
      .finally(() => this.inFlight.delete(host));
    let cancel: (() => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      cancel = this.clock.schedule(
        () => reject(new Error(`no answer within ${this.callTimeoutMs / 1000} s`)),
        this.callTimeoutMs,
      );
    });
    try {
      const list = await Promise.race([call, timeout]);
      return new Map(list.map((c) => [c.name, c]));
    } catch (err) {
      return { error: messageOf(err) };
    } finally {
      cancel?.();
    }
  }
}
