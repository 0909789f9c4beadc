/**
 * (n) The gateway (issue 40) on loopback, against the same member reached directly in the
 * same run. Four processes on 127.0.0.1 (gateway-child.ts): the origin, the member (a real
 * HTTP forward proxy: the one the gateway's unit tests use), the gateway as the app runs it,
 * and this one, the client (gateway-client.ts). "Direct" is client → member → origin;
 * "through the gateway" is client → gateway → member → origin: the one difference is the
 * gateway's hop, which is what the budget prices.
 *
 * - Tunnels: 200 `CONNECT` tunnels opened at once and held (each proved by a GET inside),
 *   then all 200 busy at once (4 MiB each); the gateway's VmRSS and VmHWM from /proc. First,
 *   so the peak is the tunnels' and not the 256 MiB transfers'.
 * - Throughput: 256 MiB GET, in a tunnel and as a plain forward request, alternating
 *   direct and gateway, best of 5 each (the best is the path's capacity; a slower run is
 *   the machine's other work).
 * - Latency: 500 small requests each way, one at a time, a new connection each, in rounds of
 *   100 alternating direct and gateway after a warm-up; p50 of all 500.
 */
import { cpus, loadavg } from 'node:os';
import { type Bench, MIB, median } from './bench-kit.js';
import {
  CLIENT_NAME,
  CLIENT_PASSWORD,
  type Child,
  MEMBER_PASSWORD,
  MEMBER_USER,
  type Via,
  cpuMsOf,
  forwardGet,
  getInTunnel,
  memoryOf,
  openTunnel,
  startChild,
  viaOf,
} from './gateway-client.js';
import { type BenchResult, result } from './results.js';

const TRANSFER_BYTES = 256 * MIB;
const THROUGHPUT_ROUNDS = 5;
const LATENCY_ROUNDS = 5;
const LATENCY_PER_ROUND = 100;
const LATENCY_WARM_UP = 50;
const TUNNELS = 200;
const TUNNEL_BYTES = 4 * MIB;
const RSS_BUDGET_MB = 150;

/** The four processes' three that are not this one, and the two ways to the member. */
interface Rig {
  origin: Child;
  member: Child;
  gateway: Child;
  direct: Via;
  gatewayVia: Via;
}

async function startRig(): Promise<Rig> {
  const started: Child[] = [];
  try {
    const origin = await startChild('origin');
    started.push(origin);
    const member = await startChild('member');
    started.push(member);
    const gateway = await startChild('gateway', { memberPort: member.port });
    return {
      origin,
      member,
      gateway,
      direct: viaOf(member.port, MEMBER_USER, MEMBER_PASSWORD),
      gatewayVia: viaOf(gateway.port, CLIENT_NAME, CLIENT_PASSWORD),
    };
  } catch (err) {
    await Promise.all(started.map((c) => c.stop()));
    throw err;
  }
}

interface TunnelFigures {
  idleRss: number;
  heldRss: number;
  busyRss: number;
  peak: number;
  relayedBytes: number;
}

/** 200 tunnels through the gateway, held, then all busy; the gateway's memory meanwhile. */
async function tunnelFigures(rig: Rig): Promise<TunnelFigures> {
  const idleRss = memoryOf(rig.gateway.pid).rss;
  const sockets = await Promise.all(
    Array.from({ length: TUNNELS }, async () => {
      const s = await openTunnel(rig.gatewayVia, rig.origin.port);
      await getInTunnel(s, '/tiny');
      return s;
    }),
  );
  try {
    // Let the relays settle (and any garbage of the opening go) before the held figure.
    await new Promise((r) => setTimeout(r, 1_000));
    const heldRss = memoryOf(rig.gateway.pid).rss;
    let busyRss = 0;
    const sampler = setInterval(() => (busyRss = Math.max(busyRss, memoryOf(rig.gateway.pid).rss)), 50);
    const got = await Promise.all(sockets.map((s) => getInTunnel(s, `/bytes/${TUNNEL_BYTES}`)));
    clearInterval(sampler);
    const relayedBytes = got.reduce((n, b) => n + b, 0);
    if (relayedBytes !== TUNNELS * TUNNEL_BYTES) throw new Error(`the tunnels relayed ${relayedBytes} bytes`);
    return { idleRss, heldRss, busyRss, peak: memoryOf(rig.gateway.pid).peak, relayedBytes };
  } finally {
    for (const s of sockets) s.destroy();
  }
}

/** MiB/s of one 256 MiB GET in a tunnel through `via`, from the connect to the last byte. */
async function tunnelRate(via: Via, originPort: number): Promise<number> {
  const t = performance.now();
  const s = await openTunnel(via, originPort);
  const n = await getInTunnel(s, `/bytes/${TRANSFER_BYTES}`);
  const seconds = (performance.now() - t) / 1000;
  s.destroy();
  if (n !== TRANSFER_BYTES) throw new Error(`the tunnel relayed ${n} of ${TRANSFER_BYTES} bytes`);
  return n / MIB / seconds;
}

/** MiB/s of one 256 MiB plain forward GET through `via`. */
async function forwardRate(via: Via, originPort: number): Promise<number> {
  const t = performance.now();
  const n = await forwardGet(via, `http://127.0.0.1:${originPort}/bytes/${TRANSFER_BYTES}`);
  const seconds = (performance.now() - t) / 1000;
  if (n !== TRANSFER_BYTES) throw new Error(`the forward GET relayed ${n} of ${TRANSFER_BYTES} bytes`);
  return n / MIB / seconds;
}

/** One tiny request's time in ms: a new tunnel and a GET in it, or a plain forward GET on a new connection. */
async function tinyMs(kind: 'tunnel' | 'forward', via: Via, originPort: number): Promise<number> {
  const t = performance.now();
  if (kind === 'forward') await forwardGet(via, `http://127.0.0.1:${originPort}/tiny`);
  else {
    const s = await openTunnel(via, originPort);
    await getInTunnel(s, '/tiny');
    s.destroy();
  }
  return performance.now() - t;
}

/** One side's best rate, and the mean CPU a transfer cost the member and the gateway. */
interface Side {
  best: number;
  median: number;
  memberCpuMs: number;
  gatewayCpuMs: number;
}

/**
 * Best rate of each side over rounds alternating which goes first, with what each transfer
 * cost the member's and the gateway's processes in CPU: on this 2-core machine four
 * processes share two cores, so the rate says how much the gateway's hop costs, and the CPU
 * says whether that is more than a proxy's hop (the member's) costs.
 */
async function bestOf(measure: (via: Via) => Promise<number>, rig: Rig): Promise<{ direct: Side; gateway: Side }> {
  const runs = { direct: [] as number[], gateway: [] as number[] };
  const cpu = { direct: { member: 0, gateway: 0 }, gateway: { member: 0, gateway: 0 } };
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    const order = round % 2 ? (['gateway', 'direct'] as const) : (['direct', 'gateway'] as const);
    for (const side of order) {
      const member = cpuMsOf(rig.member.pid);
      const gateway = cpuMsOf(rig.gateway.pid);
      runs[side].push(await measure(side === 'direct' ? rig.direct : rig.gatewayVia));
      cpu[side].member += cpuMsOf(rig.member.pid) - member;
      cpu[side].gateway += cpuMsOf(rig.gateway.pid) - gateway;
    }
  }
  const of = (side: 'direct' | 'gateway'): Side => ({
    best: Math.max(...runs[side]),
    median: median(runs[side]),
    memberCpuMs: cpu[side].member / THROUGHPUT_ROUNDS,
    gatewayCpuMs: cpu[side].gateway / THROUGHPUT_ROUNDS,
  });
  return { direct: of('direct'), gateway: of('gateway') };
}

/** p50 of each side's small requests, in alternating rounds after a warm-up of each. */
async function p50s(kind: 'tunnel' | 'forward', rig: Rig): Promise<{ direct: number; gateway: number }> {
  const one = (via: Via) => tinyMs(kind, via, rig.origin.port);
  for (let i = 0; i < LATENCY_WARM_UP; i++) {
    await one(rig.direct);
    await one(rig.gatewayVia);
  }
  const direct: number[] = [];
  const gateway: number[] = [];
  for (let round = 0; round < LATENCY_ROUNDS; round++) {
    const order = round % 2 ? [rig.gatewayVia, rig.direct] : [rig.direct, rig.gatewayVia];
    for (const via of order)
      for (let i = 0; i < LATENCY_PER_ROUND; i++) (via === rig.direct ? direct : gateway).push(await one(via));
  }
  return { direct: median(direct), gateway: median(gateway) };
}

const mb = (bytes: number) => bytes / 1e6;

function throughputRow(kind: string, r: { direct: Side; gateway: Side }): BenchResult {
  const ms = (x: number) => x.toFixed(0);
  return result({
    name: `(n) 256 MiB through the gateway vs the member direct, ${kind}`,
    ours: r.gateway.best,
    peer: r.direct.best,
    unit: 'MiB/s',
    target: 0.9,
    note: `loopback, best of ${THROUGHPUT_ROUNDS} alternating runs each (medians ${r.gateway.median.toFixed(0)} vs ${r.direct.median.toFixed(0)} MiB/s); direct is client → member → origin, the gateway adds its hop; CPU a transfer (mean): the gateway ${ms(r.gateway.gatewayCpuMs)} ms, the member ${ms(r.gateway.memberCpuMs)} ms through the gateway and ${ms(r.direct.memberCpuMs)} ms direct`,
  });
}

function latencyRow(kind: string, r: { direct: number; gateway: number }): BenchResult {
  // Against direct + 1 ms: the ratio is 1 exactly where the added latency is the budget's 1 ms.
  return result({
    name: `(n) p50 latency through the gateway vs direct + 1 ms, ${kind}`,
    ours: r.gateway,
    peer: r.direct + 1,
    unit: 'ms',
    lowerIsBetter: true,
    target: 1.0,
    note: `added ${(r.gateway - r.direct).toFixed(3)} ms (p50 ${r.gateway.toFixed(3)} ms through the gateway, ${r.direct.toFixed(3)} ms direct); ${LATENCY_ROUNDS * LATENCY_PER_ROUND} one at a time each way, a new connection each, after ${LATENCY_WARM_UP} of each not counted`,
  });
}

export const gatewayBenches: Record<string, Bench> = {
  async n(log) {
    log(
      `(n) the gateway on loopback vs the same member direct: ${TUNNELS} CONNECT tunnels held and busy (the gateway's RSS), 256 MiB in a tunnel and plain (best of ${THROUGHPUT_ROUNDS}), ${LATENCY_ROUNDS * LATENCY_PER_ROUND} small requests each way (p50)`,
    );
    const load0 = loadavg()[0]!;
    const rig = await startRig();
    try {
      const t = await tunnelFigures(rig);
      log(
        `(n) tunnels: gateway RSS idle ${mb(t.idleRss).toFixed(1)} MB, ${TUNNELS} held ${mb(t.heldRss).toFixed(1)} MB, busy ${mb(t.busyRss).toFixed(1)} MB, peak ${mb(t.peak).toFixed(1)} MB`,
      );
      const tunnel = await bestOf((via) => tunnelRate(via, rig.origin.port), rig);
      log(
        `(n) 256 MiB in a tunnel: direct ${tunnel.direct.best.toFixed(0)}, gateway ${tunnel.gateway.best.toFixed(0)} MiB/s`,
      );
      const forward = await bestOf((via) => forwardRate(via, rig.origin.port), rig);
      log(
        `(n) 256 MiB plain: direct ${forward.direct.best.toFixed(0)}, gateway ${forward.gateway.best.toFixed(0)} MiB/s`,
      );
      const tunnelLatency = await p50s('tunnel', rig);
      const forwardLatency = await p50s('forward', rig);
      const after = memoryOf(rig.gateway.pid);
      const load = `load average ${load0.toFixed(1)}→${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`;
      return [
        throughputRow('CONNECT tunnel', tunnel),
        throughputRow('plain HTTP', forward),
        latencyRow('CONNECT + GET', tunnelLatency),
        latencyRow('plain HTTP GET', forwardLatency),
        result({
          name: `(n) gateway peak RSS, ${TUNNELS} CONNECT tunnels, vs ${RSS_BUDGET_MB} MB`,
          ours: mb(t.peak),
          peer: RSS_BUDGET_MB,
          unit: 'MB',
          lowerIsBetter: true,
          target: 1.0,
          note: `the gateway's own process (VmHWM): idle ${mb(t.idleRss).toFixed(1)} MB, ${TUNNELS} tunnels held ${mb(t.heldRss).toFixed(1)} MB, all ${TUNNELS} relaying ${TUNNEL_BYTES / MIB} MiB each at once ${mb(t.busyRss).toFixed(1)} MB; after the 256 MiB transfers too: peak ${mb(after.peak).toFixed(1)} MB, now ${mb(after.rss).toFixed(1)} MB; ${load}`,
        }),
      ];
    } finally {
      await Promise.all([rig.gateway.stop(), rig.member.stop(), rig.origin.stop()]);
    }
  },
};
