/**
 * Bench (m), the backend's side: 1,000 proxies over 4 simulated hosts (bench/traffic-backend.ts
 * says what is simulated and why). This process gives every proxy a real HTTP port on
 * loopback (one listener each, answering any request as tinyproxy answers `GET /`), then
 * runs the measured backend in a child process of its own: the idle backend of bench (i)
 * (the fleet known, shut off, 60 s samples) and the watched one (5 s samples, health every
 * 30 s through every proxy), alternating, with the health probes' peer (a minimal prober
 * at the same pace), and an hour of history for its memory.
 */
import { execFile } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const BACKEND = fileURLToPath(new URL('./traffic-backend.js', import.meta.url));
export const TRAFFIC_PROXIES = 1000;
/** As long as bench (i)'s window: two health rounds and thirteen 5 s samples fall inside it. */
export const TRAFFIC_WINDOW_MS = 65_000;
/**
 * How long the watched backend and the floor run before their window opens: the monitor's
 * first two rounds (at 30 and 60 s) and a dozen samples. The window is the steady state of a
 * backend that runs for hours; a monitor's second round cost 1.4-2x its third (a process
 * still warming up), and a 31 s warm-up put it inside the window
 * (docs/performance.md, "2026-12-06 (morning)").
 */
export const TRAFFIC_WARM_UP_MS = 61_000;

export interface TrafficFigures {
  /** CPU share of a core, medians over the rounds. */
  idleCpu: number;
  watchedCpu: number;
  /** The health probes' peer: a minimal prober at the same pace (traffic-backend.ts, measureFloor), and the probes it saw answered in its window. */
  floorCpu: number;
  floorAnswered: number;
  /** Of the last watched round: samples and health reports emitted, and proxies healthy at its end. */
  samples: number;
  healthReports: number;
  healthy: number;
  /** Heap held by an hour of 5 s history for the 1,000 (after a full GC), and how many points it is. */
  historyBytes: number;
  points: number;
  /** The table's first proxies:stats (sparkPoints 60): its JSON length, and how much the process grew building it. */
  answerBytes: number;
  answerRssBytes: number;
  /** For scale: the same 60 as whole points (`historyPoints` 60, the first ask before sparkPoints), and the whole hour (before historyPoints). */
  pointsBytes: number;
  hourBytes: number;
  rounds: number;
}

async function listeners(count: number): Promise<Server[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer((_req, res) => {
            res.writeHead(400, { 'content-type': 'text/html', connection: 'close' });
            res.end('<html><body>Bad request</body></html>');
          });
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
}

function backend(mode: string, ports: number[], windowMs: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    // EGRESS_BENCH_PROFILE_DIR: the measured backend writes a CPU profile there when it exits (node --cpu-prof), as (i)'s does.
    const profile = process.env.EGRESS_BENCH_PROFILE_DIR;
    const flags = [
      '--expose-gc',
      ...(profile
        ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, `--cpu-prof-name=m-${mode}-${Date.now()}.cpuprofile`]
        : []),
    ];
    execFile(
      process.execPath,
      [...flags, BACKEND, mode, ports.join(','), String(windowMs)],
      { maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${mode} backend failed: ${stderr || err.message}`));
        resolve(JSON.parse(stdout) as Record<string, number>);
      },
    );
  });
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

export async function trafficFigures(rounds: number, log: (line: string) => void): Promise<TrafficFigures> {
  const servers = await listeners(TRAFFIC_PROXIES);
  try {
    const ports = servers.map((s) => (s.address() as AddressInfo).port);
    const idle: number[] = [];
    const watched: number[] = [];
    const floor: number[] = [];
    let last: Record<string, number> = {};
    let floorAnswered = 0;
    for (let round = 0; round < rounds; round++) {
      for (const mode of round % 2 ? ['floor', 'watched', 'idle'] : ['idle', 'watched', 'floor']) {
        log(
          `(m) round ${round + 1}: the ${mode === 'floor' ? 'minimal prober' : `${mode} backend`}, ${TRAFFIC_WINDOW_MS / 1000} s`,
        );
        const r = await backend(mode, ports, TRAFFIC_WINDOW_MS);
        if (mode === 'idle') idle.push(r.cpuShare!);
        else if (mode === 'floor') {
          floor.push(r.cpuShare!);
          floorAnswered = r.answered!;
        } else {
          watched.push(r.cpuShare!);
          last = r;
        }
      }
    }
    const memory = await backend('memory', ports, 0);
    return {
      idleCpu: median(idle),
      watchedCpu: median(watched),
      floorCpu: median(floor),
      floorAnswered,
      samples: last.samples!,
      healthReports: last.healthReports!,
      healthy: last.healthy!,
      historyBytes: memory.historyBytes!,
      points: memory.points!,
      answerBytes: memory.answerBytes!,
      answerRssBytes: memory.answerRssBytes!,
      pointsBytes: memory.pointsBytes!,
      hourBytes: memory.hourBytes!,
      rounds,
    };
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}
