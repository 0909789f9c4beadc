/**
 * `npm run bench`: every budget of docs/performance.md measured beside its peer in the
 * same run, as a ratio (these machines are noisy: absolute figures mean little).
 * `--json` prints `[{name, ours, peer, unit, ratio, target, met}]`; `--only a,c` picks.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type BenchEnv, benchEnv, testEnvMissing } from './environment.js';
import { minimalClientRate } from './minimal-client.js';
import { pythonLibVersionRate } from './peers.js';
import { type BenchResult, formatLine, formatTable, result } from './results.js';
import { oursPipelinedRate, oursSequentialRate } from './rpc.js';
import { type UploadFigures, uploadFigures } from './upload.js';
import { downloadFigures } from './download.js';
import { launchFigures } from './launch.js';
import { FLEET_SIZE, defineFleet, oursListMs, oursWholeXmlListMs, pythonListMs, undefineFleet } from './fleet.js';
import { transferFigures } from './transfer.js';
import { TRAFFIC_PROXIES, TRAFFIC_WARM_UP_MS, TRAFFIC_WINDOW_MS, trafficFigures } from './traffic.js';
import { readinessFigures } from './readiness.js';
import { bakedFigures } from './baked.js';

// ui.js and idle.js (they start Chromium through playwright-core) are imported where (g),
// (h), (i) and (m) run, not here: each benchmark runs in a child of its own, and (c) and (f)
// report their child's peak RSS against the app's 200 MB budget. Imported here, they added
// 66-76 MB to every child (a 148 MB process before a byte moved; 82 MB in December 2's
// bench), none of it the app's.
const ui = () => import('./ui.js');
const idle = () => import('./idle.js');

const CALLS = 20_000;
const WINDOW = 64;
const MIB = 1024 * 1024;

type Bench = (log: (line: string) => void) => Promise<BenchResult[]>;

// Read when a benchmark needs it: (g) runs without the test environment.
let loadedEnv: BenchEnv | undefined;
const env = (): BenchEnv => (loadedEnv ??= benchEnv());
const BENCH_DIR = process.env.EGRESS_BENCH_DIR ?? '/var/tmp/egress-bench';

/** Rounds per figure: runs of ours and of the peer alternate, and each side's median counts (the machine is noisy). */
const ROUNDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs each measurement ROUNDS times, alternating who goes first, and returns the medians. */
async function interleaved(measures: Array<() => Promise<number> | number>): Promise<number[]> {
  const runs: number[][] = measures.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = measures.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) runs[i]!.push(await measures[i]!());
  }
  return runs.map(median);
}

const benches: Record<string, Bench> = {
  async a(log) {
    log(`(a) ${CALLS} sequential CONNECT_GET_LIB_VERSION, ${ROUNDS} alternating rounds: python3-libvirt and ours`);
    const [peer, ours] = await interleaved([() => pythonLibVersionRate(CALLS), () => oursSequentialRate(env().EGRESS_TEST_SOCKET, CALLS)]);
    return [result({ name: '(a) sequential calls vs python3-libvirt', ours: ours!, peer: peer!, unit: 'calls/s', target: 1.0, note: `libvirt's C client (python3-libvirt 9.0), local socket; medians of ${ROUNDS} alternating rounds` })];
  },
  async b(log) {
    log(`(b) ${CALLS} pipelined calls, ${WINDOW} in flight, ${ROUNDS} alternating rounds: ours, the daemon's ceiling (minimal client), python3-libvirt sequential`);
    const [ours, ceiling, python] = (await interleaved([
      () => oursPipelinedRate(env().EGRESS_TEST_SOCKET, CALLS, WINDOW),
      () => minimalClientRate(env().EGRESS_TEST_SOCKET, CALLS, WINDOW),
      () => pythonLibVersionRate(CALLS),
    ])) as [number, number, number];
    return [
      result({ name: '(b) pipelined calls vs daemon ceiling', ours, peer: ceiling, unit: 'calls/s', target: 0.9, note: 'ceiling = a minimal hand-rolled client, same window, same run; within 10 % is the budget' }),
      result({
        name: '(b) pipelined calls vs python3-libvirt sequential',
        ours,
        peer: python,
        unit: 'calls/s',
        target: 3.0,
        note: `the daemon's own ceiling is ${(ceiling / python).toFixed(2)}× python3-libvirt in this run${ceiling / python < 3 ? ': a 3× target is above what libvirtd can serve here' : ''}`,
      }),
    ];
  },
  async c(log) {
    log('(c) 1 GiB upload into a pool over SSH to 127.0.0.1: ours, virsh (OpenSSH), cp');
    const runs: UploadFigures[] = [];
    for (let round = 0; round < 3; round++) runs.push(await uploadFigures(env(), BENCH_DIR));
    const rate = (s: number) => runs[0]!.bytes / MIB / s;
    const ours = median(runs.map((f) => rate(f.oursSeconds)));
    const virsh = median(runs.map((f) => rate(f.virshSeconds)));
    const cp = median(runs.map((f) => rate(f.cpSeconds)));
    const rss = Math.max(...runs.map((f) => f.peakRssBytes));
    return [
      result({ name: '(c) 1 GiB upload over SSH vs virsh qemu+ssh', ours, peer: virsh, unit: 'MiB/s', target: 1.0, note: `medians of 3 rounds; peak RSS of the process ${(rss / MIB).toFixed(0)} MB (budget < 200 MB)` }),
      result({ name: '(c) 1 GiB upload over SSH vs cp (disk limit)', ours, peer: cp, unit: 'MiB/s', target: 0, note: 'for scale only: cp into the pool directory is the disk\'s limit' }),
    ];
  },
  async d(log) {
    log('(d) launch overhead, warm cache and base, qemu:///system, no guest boot: 5 launches');
    const f = launchFigures(env());
    return [result({ name: '(d) launch overhead vs the 300 ms budget', ours: f.overheadMs, peer: 300, unit: 'ms', lowerIsBetter: true, target: 1.0, note: `median of ${f.runs} warm launches (validate, place, image, upload check, volumes, seed, define); starting the QEMU process (DomainCreate) took ${f.bootMs.toFixed(0)} ms more and belongs to the hypervisor's boot` })];
  },
  async e(log) {
    log(`(e) listing ${FLEET_SIZE} proxies on one host: defining them, then ours and python3-libvirt in alternating rounds`);
    const names = await defineFleet(env());
    try {
      const seen = { ours: 0, whole: 0, python: 0 };
      const [ours, whole, peer] = (await interleaved([
        async () => {
          const r = await oursListMs(env());
          seen.ours = r.proxies;
          return r.ms;
        },
        async () => {
          const r = await oursWholeXmlListMs(env());
          seen.whole = r.proxies;
          return r.ms;
        },
        () => {
          const r = pythonListMs();
          seen.python = r.proxies;
          return r.ms;
        },
      ])) as [number, number, number];
      if (seen.ours < FLEET_SIZE || seen.whole < FLEET_SIZE || seen.python < FLEET_SIZE) throw new Error(`listings saw ${seen.ours}, ${seen.whole} and ${seen.python} proxies of ${FLEET_SIZE}`);
      return [
        result({ name: `(e) list ${FLEET_SIZE} proxies vs python3-libvirt sequential`, ours, peer, unit: 'ms', lowerIsBetter: true, target: 3.0, note: `ours: one GET_ALL_DOMAIN_STATS (names, states), then each domain's metadata element by namespace URI pipelined (the fleet is shut off: no NIC needed), parsed; python: XML, state and metadata per domain; medians of ${ROUNDS} alternating rounds` }),
        result({ name: `(e) the same with every XML (as if all ${FLEET_SIZE} ran) vs python3-libvirt`, ours: whole, peer, unit: 'ms', lowerIsBetter: true, target: 0, note: 'list, every XML pipelined, one stats call, metadata parsed from the XML: what a running fleet\'s listing reads (a running proxy needs its NIC); for scale' }),
      ];
    } finally {
      await undefineFleet(env(), names);
    }
  },
  async f(log) {
    log('(f) 1 GiB image download + sha256 from 127.0.0.1: our cache (one pass, flushed), then curl -o + sync + sha256sum');
    const runs: Array<{ ours: number; curl: number; rss: number }> = [];
    for (let round = 0; round < 3; round++) {
      const f = await downloadFigures(BENCH_DIR);
      runs.push({ ours: f.bytes / MIB / f.oursSeconds, curl: f.bytes / MIB / f.curlSeconds, rss: f.peakRssBytes });
    }
    const ours = median(runs.map((r) => r.ours));
    const peer = median(runs.map((r) => r.curl));
    const rss = Math.max(...runs.map((r) => r.rss));
    return [result({ name: '(f) image download + verify vs curl, sync, sha256sum', ours, peer, unit: 'MiB/s', target: 1.2, note: `medians of 3 rounds; peak RSS ${(rss / MIB).toFixed(0)} MB (budget < 200 MB)` })];
  },
  async g(log) {
    log('(g) Proxies view in Chromium through egress-desk serve: first render of 1,000 rows and of 10 (alternating, 5 rounds), scrolling the 1,000');
    const f = await (await ui()).firstRenderFigures();
    return [
      result({ name: '(g) first render, 1,000 proxies, vs the 200 ms budget', ours: f.thousandMs, peer: 200, unit: 'ms', lowerIsBetter: true, target: 1.0, note: `from the proxies:list answer reaching the page to the end of the first painted frame with rows; median of ${f.rounds}; ${f.thousandScriptMs.toFixed(0)} ms of it before that frame (parse, store, React); main-thread CPU ${f.thousandCpuMs.toFixed(0)} ms; load average ${f.load[0].toFixed(1)}→${f.load[1].toFixed(1)} on ${cpus().length} cores` }),
      result({ name: '(g) first render, 1,000 proxies vs 10', ours: f.thousandMs, peer: f.tenMs, unit: 'ms', lowerIsBetter: true, target: 0, note: 'the same page and path with 10 proxies, same run: what 990 more rows cost (for scale)' }),
      result({
        name: '(g) longest frame scrolling 1,000 rows vs the 50 ms budget',
        ours: f.longestFrameMs,
        peer: 50,
        unit: 'ms',
        lowerIsBetter: true,
        target: 1.0,
        note: `top to bottom, one viewport per frame (every frame new rows), median of ${f.rounds} rounds' longest frame interval; ${f.frames} frames in all, ${f.framesOver50} over 50 ms in whole refreshes of ${f.refreshMs.toFixed(1)} ms (raw: longest ${f.rawLongestFrameMs.toFixed(1)} ms, ${f.rawFramesOver50} over 50 ms: bench/refresh.ts), ${f.longAnimationFrames} long animation frames reported by Chromium, p95 ${f.p95FrameMs.toFixed(1)} ms, ${f.scrollMs.toFixed(0)} ms per scroll; the idle page's longest frame over as many frames: ${f.idleLongestFrameMs.toFixed(1)} ms`,
      }),
      result({
        name: '(g) main-thread CPU per scroll frame vs the 50 ms budget',
        ours: f.scrollCpuPerFrameMs,
        peer: 50,
        unit: 'ms',
        lowerIsBetter: true,
        target: 1.0,
        note: "Chromium's ThreadTime over the scroll / frames (a mean, median of the rounds): what a frame costs the page when it has a core to itself, apart from the machine's load",
      }),
    ];
  },
  async h(log) {
    const missing = testEnvMissing();
    if (missing) {
      log(`(h) skipped: it launches through the real backend and needs the test environment (${missing}); run \`bash test/env/up.sh\` as root`);
      return [];
    }
    log('(h) Launch dialog submit to the first progress step shown, in Chromium through serve, on the test environment\'s libvirtd: 1 + 5 launches, each cancelled');
    const f = await (await ui()).launchClickFigures(env());
    return [
      result({
        name: '(h) Launch click to the first progress step vs the 100 ms budget',
        ours: f.stepMs,
        peer: 100,
        unit: 'ms',
        lowerIsBetter: true,
        target: 1.0,
        note: `from the submit click to the end of the first painted frame with a running or done step; median of ${f.rounds} (a first launch not counted); the progress view (the launch call answered) was painted after ${f.progressMs.toFixed(0)} ms; opening the dialog (the renderer alone) takes ${f.dialogMs.toFixed(0)} ms`,
      }),
    ];
  },
  async i(log) {
    const count = 1000;
    log(`(i) the app's backend (egress-desk serve, page open in Chromium) idle: an empty fleet, then ${count} proxies`);
    const { IDLE_WINDOW_MS, idleFigures } = await idle();
    const empty = await idleFigures(env(), 0, log);
    const names = await defineFleet(env(), count);
    let full;
    try {
      full = await idleFigures(env(), count, log);
    } finally {
      await undefineFleet(env(), names);
    }
    const mb = (b: number) => (b / MIB).toFixed(0);
    const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
    return [
      result({ name: `(i) backend RSS, ${count} proxies, idle, vs the 250 MB budget`, ours: full.rssBytes / MIB, peer: 250, unit: 'MB', lowerIsBetter: true, target: 1.0, note: `peak ${mb(full.peakRssBytes)} MB; the same process with no proxy: ${mb(empty.rssBytes)} MB (peak ${mb(empty.peakRssBytes)} MB)` }),
      result({ name: `(i) backend CPU, ${count} proxies, idle ${IDLE_WINDOW_MS / 1000} s, vs a 1 % budget`, ours: full.cpuShare * 100, peer: 1, unit: '% of a core', lowerIsBetter: true, target: 1.0, note: `the window includes one background re-listing (60 s); with no proxy: ${pct(empty.cpuShare)}` }),
    ];
  },
  async j(log) {
    if (process.getuid?.() !== 0) {
      log('(j) skipped: its mirror and probes run inside the test namespace (ip netns exec), which needs root');
      return [];
    }
    // Each round boots three guests and bakes once under TCG (~6 min): EGRESS_BENCH_J_ROUNDS=1 for a quick look.
    const rounds = Math.max(1, Number(process.env.EGRESS_BENCH_J_ROUNDS ?? 2) || 2);
    log(`(j) click to a proxy that answers on the bare image (no tinyproxy, no agent): ours unbaked with the site mirror, images bake, ours baked with no mirror, and by hand (virt-install --import, a NoCloud seed, the same mirror); ${rounds} alternating rounds`);
    const f = await bakedFigures(env(), log, rounds);
    if (f.leftovers.length > 0) throw new Error(`the bench left ${f.leftovers.join(', ')} behind`);
    const s = (v: number[]) => v.map((x) => (x / 1000).toFixed(1)).join(', ');
    const [first, baked, peer, bake] = [f.rounds.map((r) => r.firstMs), f.rounds.map((r) => r.bakedMs), f.rounds.map((r) => r.peerMs), f.rounds.map((r) => r.bakeMs)];
    const byHand = `by hand ${s(peer)} s (virt-install itself ${s(f.rounds.map((r) => r.peerVirtInstallMs))} s, the lease at ${s(f.rounds.map((r) => r.peerLeaseMs))} s)`;
    return [
      result({ name: '(j) click to a proxy that answers, baked image, no mirror, vs by hand (virt-install + seed + mirror)', ours: median(baked) / 1000, peer: median(peer) / 1000, unit: 's', lowerIsBetter: true, target: 1.5, note: `medians of ${rounds} alternating rounds under TCG (512 MiB, 1 vCPU); ours baked ${s(baked)} s, ${byHand}; the bake itself took ${s(bake)} s, once per host and image` }),
      result({ name: '(j) the same, our first (unbaked) launch with the site mirror, vs by hand', ours: median(first) / 1000, peer: median(peer) / 1000, unit: 's', lowerIsBetter: true, target: 0, note: `ours first ${s(first)} s (installs tinyproxy and qemu-guest-agent from the mirror; the peer installs tinyproxy only); for scale` }),
    ];
  },
  async k(log) {
    if (process.getuid?.() !== 0) {
      log('(k) skipped: it makes network namespaces, a veth pair and tc qdiscs, which needs root');
      return [];
    }
    const rateMbit = 100;
    log(`(k) provisioning a 256 MiB image on an SSH host over a ${rateMbit} Mbit/s link (tc, in namespaces of the bench's own): fetch-on-host, our upload, virsh vol-upload over OpenSSH; 3 alternating rounds`);
    const f = await transferFigures(env(), BENCH_DIR, log, { rateMbit });
    if (f.leftovers.length > 0) throw new Error(`the bench left ${f.leftovers.join(', ')} behind`);
    const [fetch, upload, virsh] = [median(f.fetch), median(f.upload), median(f.virsh)];
    const size = `${(f.bytes / MIB).toFixed(0)} MiB`;
    const link = `the link measured ${f.plainMbit.toFixed(1)} Mbit/s for a plain ${f.plainBytes / MIB} MiB TCP transfer (${f.qdiscs})`;
    const served = Object.entries(f.requests).map(([agent, n]) => `${n} ${agent}`).join(', ');
    return [
      result({ name: `(k) ${size} onto an SSH host over ${rateMbit} Mbit/s: fetch-on-host vs our upload`, ours: fetch, peer: upload, unit: 's', lowerIsBetter: true, target: 3.0, note: `medians of 3; fetch = the host's probe, curl, sha256sum and libvirt's copy into the pool; upload = a libvirt stream over ssh2 across the link; ${link}` }),
      result({ name: `(k) the same: fetch-on-host vs virsh vol-upload over OpenSSH`, ours: fetch, peer: virsh, unit: 's', lowerIsBetter: true, target: 3.0, note: `the server near the host answered ${served} (only the host's curl downloads the image); nothing of the link was left after the run` }),
      result({ name: '(k) the same: our upload vs virsh vol-upload (the link is the limit)', ours: upload, peer: virsh, unit: 's', lowerIsBetter: true, target: 1.0, note: `the link's own limit for ${size} at ${f.plainMbit.toFixed(1)} Mbit/s: ${((f.bytes * 8) / 1e6 / f.plainMbit).toFixed(1)} s` }),
    ];
  },
  async l(log) {
    if (process.getuid?.() !== 0) {
      log('(l) skipped: its probe runs inside the test namespace (ip netns exec), which needs root');
      return [];
    }
    log('(l) readiness: the proxy port opening (a probe inside the test namespace, every 10 ms) to the app saying ready; 3 real launches of the preinstalled guest image');
    const f = await readinessFigures(env(), log);
    if (f.latenciesMs.length === 0) throw new Error('no round saw the port open: the probe started after it had opened');
    const ms = (v: number[]) => v.map((x) => x.toFixed(0)).join(', ');
    return [
      result({
        name: '(l) port open to the app saying ready vs the 1 s budget',
        ours: median(f.latenciesMs),
        peer: 1000,
        unit: 'ms',
        lowerIsBetter: true,
        target: 1.0,
        note: `median of ${f.latenciesMs.length} launches (${ms(f.latenciesMs)} ms${f.rounds.length > f.latenciesMs.length ? `; ${f.rounds.length - f.latenciesMs.length} not counted: the port was open at the probe's first attempt` : ''}); launch to ready ${ms(f.launchToReadyMs.map((x) => x / 1000))} s under TCG`,
      }),
    ];
  },
  async m(log) {
    log(`(m) ${TRAFFIC_PROXIES} proxies over 4 simulated hosts: the idle backend of (i), the watched one (stats every 5 s, health every 30 s) and a minimal prober at the same pace (its floor), alternating, ${TRAFFIC_WINDOW_MS / 1000} s each after ${TRAFFIC_WARM_UP_MS / 1000} s of warm-up; an hour of history; then the table scrolled while figures arrive`);
    const b = await trafficFigures(2, log);
    const { UPDATING_SCROLL_MS, updatingScrollFigures } = await ui();
    const r = await updatingScrollFigures();
    const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
    return [
      result({
        name: '(m) backend CPU with stats every 5 s + health every 30 s, more than idle (i), vs 2 % of a core',
        ours: (b.watchedCpu - b.idleCpu) * 100,
        peer: 2,
        unit: '% of a core',
        lowerIsBetter: true,
        target: 1.0,
        note: `watched ${pct(b.watchedCpu)}, idle (the (i) backend: the ${TRAFFIC_PROXIES} known, shut off, 60 s samples) ${pct(b.idleCpu)}; medians of ${b.rounds} alternating rounds, each window after ${TRAFFIC_WARM_UP_MS / 1000} s of warm-up (the monitor's first two rounds; idle after 5 s); the health probes' floor on this machine (a minimal prober: bare sockets, the same 1,000 every 30 s, ${b.floorAnswered} answered in its window) ${pct(b.floorCpu)}, so the app adds ${pct(b.watchedCpu - b.idleCpu - b.floorCpu)} (the stats sampler and all around a probe); the last watched window emitted ${b.samples} samples and ${b.healthReports} health reports, ${b.healthy} of ${TRAFFIC_PROXIES} proxies probed healthy through real loopback HTTP ports; the hosts' stats answers are simulated (no XDR decode)`,
      }),
      result({
        name: '(m) memory of an hour of history, 1,000 proxies, vs 50 MB',
        ours: b.historyBytes / MIB,
        peer: 50,
        unit: 'MB',
        lowerIsBetter: true,
        target: 1.0,
        note: `heap + array buffers after a full GC, before and after 720 samples 5 s apart (${b.points} points kept); the table's first proxies:stats (each proxy's newest 60 totals) is ${(b.answerBytes / MIB).toFixed(2)} MB of JSON and grew the process by ${(b.answerRssBytes / MIB).toFixed(0)} MB while it was built (as 60 whole points it would be ${(b.pointsBytes / MIB).toFixed(1)} MB, the whole hour ${(b.hourBytes / MIB).toFixed(1)} MB)`,
      }),
      result({
        name: '(m) longest frame scrolling 1,000 rows while their figures update every 5 s, vs 50 ms',
        ours: r.longestFrameMs,
        peer: 50,
        unit: 'ms',
        lowerIsBetter: true,
        target: 1.0,
        note: `${r.rounds} rounds of ${UPDATING_SCROLL_MS / 1000} s, one viewport per frame down and up, median of the rounds' longest; ${r.frames} frames, ${r.framesOver50} over 50 ms in whole refreshes of ${r.refreshMs.toFixed(1)} ms (raw: longest ${r.rawLongestFrameMs.toFixed(1)} ms, ${r.rawFramesOver50} over 50 ms: bench/refresh.ts), ${r.longAnimationFrames} long animation frames, p95 ${r.p95FrameMs.toFixed(1)} ms, ${r.cpuPerFrameMs.toFixed(1)} ms main-thread CPU a frame; ${r.statsPushed} proxy:stats and ${r.healthPushed} proxy:health pushed; load average ${r.load[0].toFixed(1)}→${r.load[1].toFixed(1)}`,
      }),
    ];
  },
};

/**
 * Runs one benchmark in a fresh process: peak-RSS figures then belong to that benchmark
 * alone, and one benchmark's garbage does not slow the next.
 */
function runIsolated(name: string, log: (line: string) => void): BenchResult[] {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--only', name, '--json', '--child'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0 && !r.stdout.trim()) {
    log(`(${name}) failed to run (exit ${r.status})`);
    return [{ name: `(${name}) failed`, ours: 0, peer: 0, unit: '', ratio: 0, target: 1, met: false, note: `exit ${r.status}` }];
  }
  return JSON.parse(r.stdout) as BenchResult[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const onlyArg = args.find((a) => a.startsWith('--only='))?.slice(7) ?? (args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined);
  const names = onlyArg ? onlyArg.split(',') : Object.keys(benches);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const results: BenchResult[] = [];
  for (const name of names) {
    const bench = benches[name];
    if (!bench) throw new Error(`unknown benchmark ${JSON.stringify(name)} (known: ${Object.keys(benches).join(', ')})`);
    if (!args.includes('--child')) {
      const got = runIsolated(name, log);
      for (const r of got) log(formatLine(r));
      results.push(...got);
      continue;
    }
    try {
      results.push(...(await bench(log)));
    } catch (err) {
      // One benchmark failing must not hide the others' figures.
      process.exitCode = 1;
      log(`(${name}) failed: ${err instanceof Error ? err.message : String(err)}`);
      results.push({ name: `(${name}) failed`, ours: 0, peer: 0, unit: '', ratio: 0, target: 1, met: false, note: err instanceof Error ? err.message : String(err) });
    }
  }
  process.stdout.write(json ? `${JSON.stringify(results, null, 2)}\n` : `${formatTable(results)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
