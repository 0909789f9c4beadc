/**
 * Bench (m), the backend's side, in a process of its own (its CPU time and heap are the
 * figures): the app's own stats sampler (FleetStatsSampler) and health monitor
 * (FleetHealthMonitor) over 1,000 proxies on 4 simulated hosts. What is simulated is only
 * what needs a thousand guests: each host's answer to the one stats call (counters that
 * grow, read through the same countersFromStats as libvirt's records), and each proxy's
 * HTTP port (a loopback listener per proxy in the parent process, bench/traffic.ts, so the
 * probes are real TCP connections and HTTP requests). The proxies' credentials come from
 * the app's own store over a real file of 1,000 entries, read for every probe as in the
 * app. Every figure the sampler emits is serialised once, as serve does for its page.
 *
 * Modes (argv[2]): `watched` (a window watching: 5 s samples, health every 30 s, every
 * proxy running and probed), `idle` (the backend of bench (i): the 1,000 known but shut
 * off, samples every 60 s, health finding nothing to probe), `memory` (an hour of 5 s
 * samples driven by a clock, then the heap with and without that history), `floor` (the
 * watched backend's health probes' peer: a minimal prober, see measureFloor). Prints JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FleetHealth } from '../shared/health.js';
import type { FleetStats } from '../shared/stats.js';
import { DEFAULT_PROBES_PER_HOST, FleetHealthMonitor } from '../electron/services/app/fleet-health.js';
import { plainRequest } from '../electron/services/health/plain-probe.js';
import { FleetStatsSampler, type StatsClock } from '../electron/services/app/fleet-stats.js';
import type { ProxyRecord } from '../electron/services/provider/kvm/context.js';
import { FileCredentialsStore } from '../electron/services/credentials/credentials-store.js';
import { countersFromStats } from '../electron/services/provider/kvm/domain-counters.js';
import type { DomainCounters, LibvirtApi } from '../electron/services/provider/kvm/libvirt-api.js';
import { TRAFFIC_WARM_UP_MS } from './traffic.js';

const HOSTS = 4;
const PER_HOST = 250;
/** The table's first ask: its sparklines' points (SPARK_POINTS in renderer/stores/stats-store.ts). */
const TABLE_SPARK_POINTS = 60;

/** The fleet: `ports[i]` is proxy i's listener on 127.0.0.1 (its "guest address"). */
function fleet(ports: readonly number[], running: boolean): ProxyRecord[] {
  return ports.map((port, i) => ({
    name: `sim-${String(i).padStart(4, '0')}`,
    id: `ep-sim-${i}`,
    host: `sim-${i % HOSTS}`,
    state: running ? 'running' : 'shutoff',
    port,
    machineType: 'small',
    image: { name: 'debian', sha256: '0'.repeat(64) },
    createdAt: new Date(0).toISOString(),
    owner: 'egress-desk',
    specHash: `sha256:${'0'.repeat(64)}`,
    addresses: running ? [{ address: '127.0.0.1', prefix: 8, family: 'ipv4', source: 'lease' }] : [],
  }));
}

/**
 * One simulated host's answer to CONNECT_GET_ALL_DOMAIN_STATS (ACTIVE): its running
 * domains' records, as the client flattens them, each read by countersFromStats. The
 * sampler asks this one method of the host API; the rest of LibvirtApi is never called.
 */
function simulatedHost(proxies: readonly ProxyRecord[], clock: () => number): Pick<LibvirtApi, 'domainCounters'> {
  return {
    domainCounters: async (): Promise<DomainCounters[]> => {
      const s = clock() / 1000;
      return proxies
        .filter((p) => p.state === 'running')
        .map((p, i) =>
          countersFromStats(p.id, i + 1, {
            'state.state': 1,
            'cpu.time': BigInt(Math.round(s * 1e7 * (1 + (i % 5)))),
            'net.count': 1,
            'net.0.name': `vnet${i}`,
            'net.0.rx.bytes': BigInt(Math.round(s * 50_000 * (1 + (i % 7)))),
            'net.0.rx.pkts': BigInt(Math.round(s * 40)),
            'net.0.tx.bytes': BigInt(Math.round(s * 90_000 * (1 + (i % 3)))),
            'net.0.tx.pkts': BigInt(Math.round(s * 60)),
          }),
        );
    },
  };
}

function sampler(
  proxies: readonly ProxyRecord[],
  clock: StatsClock | undefined,
  emit: (s: FleetStats) => void,
): FleetStatsSampler {
  const now = clock ? () => clock.now() : () => Date.now();
  const hosts = Array.from({ length: HOSTS }, (_, h) => `sim-${h}`);
  const apis = new Map(
    hosts.map((h) => [
      h,
      simulatedHost(
        proxies.filter((p) => p.host === h),
        now,
      ),
    ]),
  );
  return new FleetStatsSampler({
    hosts: () => hosts,
    // The sampler's one call on a host is domainCounters (see simulatedHost).
    apiFor: async (host) => apis.get(host)! as LibvirtApi,
    proxies: () => proxies,
    emit,
    ...(clock ? { clock } : {}),
  });
}

/** Proxy i's credentials in the bench: what credentialsFile stores, and what the floor sends as the first proxy's. */
function benchCredentials(i: number): { username: string; password: string } {
  return { username: 'egress', password: `bench-${i.toString(36)}-${'x'.repeat(20)}` };
}

/** The app's credentials file for the fleet (FileCredentialsStore's format), in a directory of its own. */
function credentialsFile(proxies: readonly ProxyRecord[]): { store: FileCredentialsStore; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'egress-bench-m-'));
  const file = join(dir, 'credentials.json');
  const entries = Object.fromEntries(proxies.map((p, i) => [p.name, benchCredentials(i)]));
  writeFileSync(file, `${JSON.stringify({ version: 1, proxies: entries }, null, 2)}\n`, { mode: 0o600 });
  return { store: new FileCredentialsStore(file), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function measureWindow(
  mode: 'watched' | 'idle',
  ports: number[],
  windowMs: number,
): Promise<Record<string, number>> {
  const proxies = fleet(ports, mode === 'watched');
  const { store, remove } = credentialsFile(proxies);
  let bytes = 0;
  let samples = 0;
  let healthReports = 0;
  // What serve does with every figure: one JSON text per page.
  const stats = sampler(proxies, undefined, (s) => {
    samples++;
    bytes += JSON.stringify({ event: 'proxy:stats', payload: s }).length;
  });
  const health = new FleetHealthMonitor({
    proxies: () => proxies,
    connected: () => new Set(proxies.map((p) => p.host)),
    // The real store over a real file of 1,000 entries, as the app reads them for every probe.
    credentials: (name) => store.get(name),
    settings: async () => ({}),
    emit: (h: FleetHealth) => {
      healthReports++;
      bytes += JSON.stringify({ event: 'proxy:health', payload: h }).length;
    },
  });
  stats.start();
  health.start();
  const release = mode === 'watched' ? stats.watch() : () => undefined;
  // Start-up and the first rounds before the window: they are not the steady state (TRAFFIC_WARM_UP_MS).
  await sleep(mode === 'watched' ? TRAFFIC_WARM_UP_MS : 5_000);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(windowMs);
  const used = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  release();
  stats.close();
  health.close();
  remove();
  const healthy = health.snapshot().proxies.filter((p) => p.state === 'healthy' || p.state === 'slow').length;
  return {
    cpuShare: (used.user + used.system) / 1000 / wall,
    samples,
    healthReports,
    bytes,
    healthy,
    proxies: proxies.length,
  };
}

/** Probes in flight at once in the floor: FleetHealthMonitor's default per host, over the 4 hosts. */
const FLOOR_IN_FLIGHT = DEFAULT_PROBES_PER_HOST * HOSTS;

/**
 * The peer of the watched backend's health probes, in the same run: the least a round of
 * 1,000 proxies every 30 s can cost in Node. Each probe is a bare socket (connect, write a
 * request as long as the monitor's, read to the end, close), {@link FLOOR_IN_FLIGHT} at a
 * time, with no timeout, credentials, state or report. What the watched window costs above
 * idle, less this, is the stats sampler and everything the app does around a probe.
 */
async function measureFloor(ports: number[], windowMs: number): Promise<Record<string, number>> {
  // The monitor's own request text (plain-probe.ts), with the first proxy's credentials.
  const { username, password } = benchCredentials(0);
  const request = plainRequest('/', {
    host: `127.0.0.1:${ports[0]}`,
    'user-agent': 'egress-desk-health',
    connection: 'close',
    'proxy-authorization': `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
  });
  let answered = 0;
  const probe = (port: number) =>
    new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.on('data', () => undefined);
      socket.on('end', () => {
        answered++;
        socket.destroy();
        resolve();
      });
      socket.on('error', () => resolve());
      socket.write(request);
    });
  const round = async () => {
    const queue = [...ports];
    await Promise.all(
      Array.from({ length: FLOOR_IN_FLIGHT }, async () => {
        for (let port = queue.shift(); port; port = queue.shift()) await probe(port);
      }),
    );
  };
  // The same pace as the monitor: a round now, then one every 30 s; the window opens after the same warm-up as the watched one's.
  void round();
  const timer = setInterval(() => void round(), 30_000);
  await sleep(TRAFFIC_WARM_UP_MS);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  answered = 0;
  await sleep(windowMs);
  const used = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  clearInterval(timer);
  return { cpuShare: (used.user + used.system) / 1000 / wall, answered };
}

/** An hour of 5 s samples through a driven clock: the heap (after a full GC) with that history, against before it. */
async function measureMemory(ports: number[]): Promise<Record<string, number>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const proxies = fleet(ports, true);
  let at = 1_800_000_000_000;
  const clock: StatsClock = { now: () => at, schedule: () => () => undefined };
  const stats = sampler(proxies, clock, () => undefined);
  // The history lives in typed arrays: their buffers are outside heapUsed, so both count.
  const held = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  gc();
  const before = held();
  for (let i = 0; i < 720; i++) {
    at += 5_000;
    await stats.sample();
  }
  gc();
  const after = held();
  const points = stats.snapshot({ history: true }).proxies.reduce((n, p) => n + (p.history?.length ?? 0), 0);
  gc();
  // The table's first ask (renderer/stores/stats-store.ts, SPARK_POINTS): each proxy's newest 60 totals, built and serialised at once.
  const rss0 = process.memoryUsage().rss;
  const answer = stats.snapshot({ sparkPoints: TABLE_SPARK_POINTS });
  const answerBytes = JSON.stringify(answer).length;
  const answerRssBytes = process.memoryUsage().rss - rss0;
  // For scale: the same 60 as whole points (the first ask before sparkPoints), and the whole hour (before historyPoints).
  const pointsBytes = JSON.stringify(stats.snapshot({ history: true, historyPoints: TABLE_SPARK_POINTS })).length;
  const hourBytes = JSON.stringify(stats.snapshot({ history: true })).length;
  stats.close();
  return { historyBytes: after - before, points, answerBytes, answerRssBytes, pointsBytes, hourBytes };
}

async function main(): Promise<void> {
  const [mode, portsArg, windowArg] = process.argv.slice(2);
  const ports = (portsArg ?? '').split(',').map(Number);
  if (ports.length !== HOSTS * PER_HOST || ports.some((p) => !Number.isInteger(p) || p <= 0))
    throw new Error(`expected ${HOSTS * PER_HOST} ports`);
  const windowMs = Number(windowArg ?? 65_000);
  const out =
    mode === 'memory'
      ? await measureMemory(ports)
      : mode === 'floor'
        ? await measureFloor(ports, windowMs)
        : await measureWindow(mode === 'watched' ? 'watched' : 'idle', ports, windowMs);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`traffic-backend: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
