/**
 * The gateway as the app runs it (issue 40): started and stopped from settings.json's
 * `gateway` section (the Gateway view writes it), over the fleet the app already watches
 * (its listing, health rounds and credentials), with the same listeners, log and counters
 * as `egress-desk gateway`. Its status (address, members with their share, totals and rates)
 * goes to the windows every `updateMs` while it runs. Nothing here outlives the process:
 * counters and sessions start again with it.
 */
import type { FleetHealth } from '../../../shared/health.js';
import type { GatewayAccessEntry, GatewayMemberView, GatewaySettings, GatewayStatus } from '../../../shared/gateway.js';
import type { ProxyCredentials } from '../../../shared/proxy.js';
import type { GatewayUser } from '../../../shared/gateway-user.js';
import { messageOf } from '../../../shared/errors.js';
import type { ProxyRecord } from '../provider/kvm/context.js';
import { AccessLog, accessLogPath } from './access-log.js';
import { type TunnelFor, healthStates, membersOf, unusableReason } from './fleet-members.js';
import { proxyKey } from '../../../shared/proxy-key.js';
import { GatewayClientsStore, gatewayClientsPath } from './gateway-clients.js';
import { GatewayServer } from './gateway-server.js';
import { GatewaySocksListener } from './gateway-socks.js';

/** The fleet as the gateway reads it, while the app's backend is open. */
export interface GatewayFleet {
  proxies: () => Iterable<ProxyRecord>;
  health: () => FleetHealth;
  credentials: (name: string) => Promise<ProxyCredentials | undefined>;
  tunnelFor?: TunnelFor | undefined;
}

export interface AppGatewayOptions {
  dataDir: string;
  /** The fleet, or undefined before the backend is open (the gateway then has no member). */
  fleet: () => GatewayFleet | undefined;
  settings: () => Promise<GatewaySettings>;
  emit: (status: GatewayStatus) => void;
  /** Requests that ended since the last call, with each status update (the Requests table). */
  emitRequests?: (entries: GatewayAccessEntry[]) => void;
  now?: () => number;
  /** Status to the windows this often while running (default 2 s; 0: only on changes). */
  updateMs?: number;
  /** A sticky session moved to another member (its old one failed): the CLI prints it. */
  moved?: (user: GatewayUser, from: string, to: string) => void;
}

interface Running {
  server: GatewayServer;
  socks: GatewaySocksListener | undefined;
  log: AccessLog;
  address: string;
  port: number;
  socksPort: number | undefined;
  settings: GatewaySettings;
}

/** Totals a few seconds apart, for the rates. */
interface Sample {
  at: number;
  requests: number;
  bytes: number;
}

const EMPTY_HEALTH: FleetHealth = { at: 0, proxies: [] };

export class AppGateway {
  readonly clients: GatewayClientsStore;
  private running: Running | undefined;
  private error: string | undefined;
  private credentials = new Map<string, ProxyCredentials>();
  private timer: NodeJS.Timeout | undefined;
  private samples: Sample[] = [];
  private clientNames: string[] = [];
  private lastSettings: GatewaySettings | undefined;
  private applying: Promise<GatewayStatus> | undefined;
  /** Requests ended since the last update, at most a screenful more than the table keeps. */
  private pending: GatewayAccessEntry[] = [];
  private readonly now: () => number;

  constructor(private readonly options: AppGatewayOptions) {
    this.clients = new GatewayClientsStore(gatewayClientsPath(options.dataDir));
    this.now = options.now ?? Date.now;
  }

  /**
   * Makes the gateway what the settings say: started, stopped, or restarted on another
   * address. One at a time; a failure to start is kept in the status (`error`), not thrown.
   */
  apply(): Promise<GatewayStatus> {
    const next = (this.applying ?? Promise.resolve()).then(() => this.applyNow());
    this.applying = next.catch(() => this.status());
    return next;
  }

  private async applyNow(): Promise<GatewayStatus> {
    const settings = await this.options.settings();
    this.lastSettings = settings;
    this.clientNames = (await this.clients.list()).map((c) => c.name);
    const same =
      this.running &&
      this.running.settings.port === settings.port &&
      this.running.settings.bind === settings.bind &&
      this.running.settings.socksPort === settings.socksPort &&
      this.running.settings.logQuery === settings.logQuery;
    if (this.running && (!settings.enabled || !same)) await this.stop();
    if (settings.enabled && !this.running) await this.start(settings);
    const status = this.status();
    this.options.emit(status);
    return status;
  }

  private async start(settings: GatewaySettings): Promise<void> {
    this.error = undefined;
    await this.readCredentials();
    // Made once the listeners are up; requests cannot come before that.
    let log: AccessLog | undefined;
    const server = new GatewayServer({
      members: () => this.members(),
      clients: () => this.clients.list(),
      log: (entry) => {
        log?.write(entry);
        if (this.pending.push(entry) > 1_000) this.pending.shift();
      },
      now: this.now,
      ...(settings.logQuery ? { logQuery: true } : {}),
      ...(this.options.moved ? { moved: this.options.moved } : {}),
    });
    let socks: GatewaySocksListener | undefined;
    /** Which listener was being opened, for a port in use. */
    let opening = `port ${settings.port}`;
    try {
      const at = await server.listen(settings.port, settings.bind);
      socks = settings.socksPort === null ? undefined : new GatewaySocksListener(server, () => this.clients.list());
      opening = `the SOCKS5 port ${settings.socksPort ?? 0}`;
      const socksAt = socks ? await socks.listen(settings.socksPort ?? 0, settings.bind) : undefined;
      log = new AccessLog(accessLogPath(this.options.dataDir));
      this.running = { server, socks, log, address: at.address, port: at.port, socksPort: socksAt?.port, settings };
      this.samples = [];
      if ((this.options.updateMs ?? 2_000) > 0) {
        this.timer = setInterval(() => {
          void this.readCredentials().catch(() => undefined);
          this.options.emit(this.status());
          if (this.pending.length) this.options.emitRequests?.(this.pending.splice(0));
        }, this.options.updateMs ?? 2_000);
        this.timer.unref();
      }
    } catch (err) {
      await socks?.close().catch(() => undefined);
      await server.close().catch(() => undefined);
      log?.close();
      const e = err as NodeJS.ErrnoException;
      this.error =
        e.code === 'EADDRINUSE' ? `${opening} on ${settings.bind} is in use: choose another` : messageOf(err);
    }
  }

  /** Stops listening and ends every relay. */
  async stop(): Promise<void> {
    const r = this.running;
    this.running = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
    if (!r) return;
    await r.socks?.close().catch(() => undefined);
    await r.server.close().catch(() => undefined);
    r.log.close();
  }

  async close(): Promise<void> {
    await this.applying?.catch(() => undefined);
    await this.stop();
  }

  private members() {
    const fleet = this.options.fleet();
    if (!fleet) return [];
    return membersOf(fleet.proxies(), fleet.health(), this.credentials, fleet.tunnelFor);
  }

  /** The credentials of the proxies listed now (the file is parsed once per change: credentials/parsed-file-cache.ts). */
  private async readCredentials(): Promise<void> {
    const fleet = this.options.fleet();
    if (!fleet) return;
    const next = new Map<string, ProxyCredentials>();
    for (const p of fleet.proxies()) {
      const c = await fleet.credentials(p.name).catch(() => undefined);
      if (c) next.set(p.name, c);
    }
    this.credentials = next;
  }

  /** What the Gateway view shows now. */
  status(): GatewayStatus {
    const r = this.running;
    const counters = r?.server.counters.snapshot();
    const fleet = this.options.fleet();
    const health = fleet?.health() ?? EMPTY_HEALTH;
    const tallies = Object.values(counters?.members ?? {});
    const requests = tallies.reduce((n, t) => n + t.requests, 0);
    const bytesIn = tallies.reduce((n, t) => n + t.bytesIn, 0);
    const bytesOut = tallies.reduce((n, t) => n + t.bytesOut, 0);
    const members: GatewayMemberView[] = [];
    const states = healthStates(health);
    for (const p of fleet?.proxies() ?? []) {
      const key = proxyKey(p.host, p.id);
      const t = counters?.members[key];
      const reason = unusableReason(p, states, this.credentials);
      members.push({
        key,
        name: p.name,
        host: p.host,
        usable: reason === undefined,
        ...(reason !== undefined ? { reason } : {}),
        requests: t?.requests ?? 0,
        share: requests && t ? t.requests / requests : 0,
        bytesIn: t?.bytesIn ?? 0,
        bytesOut: t?.bytesOut ?? 0,
        open: r?.server.chooser.openCount(key) ?? 0,
      });
    }
    const rates = this.rates({ at: this.now(), requests, bytes: bytesIn + bytesOut });
    return {
      settings: this.lastSettings ?? {
        enabled: false,
        port: 3130,
        bind: '127.0.0.1',
        socksPort: 3131,
        logQuery: false,
      },
      running: r !== undefined,
      ...(r ? { address: r.address, port: r.port } : {}),
      ...(r?.socksPort !== undefined ? { socksPort: r.socksPort } : {}),
      ...(this.error ? { error: this.error } : {}),
      clients: this.clientNames,
      members,
      totals: { requests, bytesIn, bytesOut, ...rates },
      logFile: accessLogPath(this.options.dataDir),
    };
  }

  /** Requests and bytes a second over the last ~10 s of samples. */
  private rates(now: Sample): { requestsPerSecond: number; bytesPerSecond: number } {
    this.samples.push(now);
    while (this.samples.length > 1 && now.at - this.samples[0]!.at > 10_000) this.samples.shift();
    const first = this.samples[0]!;
    const seconds = (now.at - first.at) / 1000;
    if (seconds <= 0) return { requestsPerSecond: 0, bytesPerSecond: 0 };
    return {
      requestsPerSecond: Math.max(0, (now.requests - first.requests) / seconds),
      bytesPerSecond: Math.max(0, (now.bytes - first.bytes) / seconds),
    };
  }
}
