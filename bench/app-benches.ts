/**
 * The benchmarks of the app itself (bench/main.ts runs them): the Proxies view in Chromium
 * through serve (g), the Launch dialog's first step (h), the idle backend (i), and the
 * backend watching a thousand proxies while the table scrolls (m).
 */
import { cpus } from 'node:os';
import { type Bench, MIB, env } from './bench-kit.js';
import { testEnvMissing } from './environment.js';
import { defineFleet, undefineFleet } from './fleet.js';
import { result } from './results.js';
import { TRAFFIC_PROXIES, TRAFFIC_WARM_UP_MS, TRAFFIC_WINDOW_MS, trafficFigures } from './traffic.js';

// ui.js and idle.js (they start Chromium through playwright-core) are imported where (g),
// (h), (i) and (m) run, not here: each benchmark runs in a child of its own, and (c) and (f)
// report their child's peak RSS against the app's 200 MB budget. Imported here, they added
// 66-76 MB to every child (a 148 MB process before a byte moved; 82 MB in December 2's
// bench), none of it the app's.
const ui = () => import('./ui.js');
const idle = () => import('./idle.js');

export const appBenches: Record<string, Bench> = {
  async g(log) {
    log(
      '(g) Proxies view in Chromium through egress-desk serve: first render of 1,000 rows and of 10 (alternating, 5 rounds), scrolling the 1,000',
    );
    const f = await (await ui()).firstRenderFigures();
    return [
      result({
        name: '(g) first render, 1,000 proxies, vs the 200 ms budget',
        ours: f.thousandMs,
        peer: 200,
        unit: 'ms',
        lowerIsBetter: true,
        target: 1.0,
        note: `from the proxies:list answer reaching the page to the end of the first painted frame with rows; median of ${f.rounds}; ${f.thousandScriptMs.toFixed(0)} ms of it before that frame (parse, store, React); main-thread CPU ${f.thousandCpuMs.toFixed(0)} ms; load average ${f.load[0].toFixed(1)}→${f.load[1].toFixed(1)} on ${cpus().length} cores`,
      }),
      result({
        name: '(g) first render, 1,000 proxies vs 10',
        ours: f.thousandMs,
        peer: f.tenMs,
        unit: 'ms',
        lowerIsBetter: true,
        target: 0,
        note: 'the same page and path with 10 proxies, same run: what 990 more rows cost (for scale)',
      }),
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
      log(
        `(h) skipped: it launches through the real backend and needs the test environment (${missing}); run \`bash test/env/up.sh\` as root`,
      );
      return [];
    }
    log(
      "(h) Launch dialog submit to the first progress step shown, in Chromium through serve, on the test environment's libvirtd: 1 + 5 launches, each cancelled",
    );
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
      result({
        name: `(i) backend RSS, ${count} proxies, idle, vs the 250 MB budget`,
        ours: full.rssBytes / MIB,
        peer: 250,
        unit: 'MB',
        lowerIsBetter: true,
        target: 1.0,
        note: `peak ${mb(full.peakRssBytes)} MB; the same process with no proxy: ${mb(empty.rssBytes)} MB (peak ${mb(empty.peakRssBytes)} MB)`,
      }),
      result({
        name: `(i) backend CPU, ${count} proxies, idle ${IDLE_WINDOW_MS / 1000} s, vs a 1 % budget`,
        ours: full.cpuShare * 100,
        peer: 1,
        unit: '% of a core',
        lowerIsBetter: true,
        target: 1.0,
        note: `the window includes one background re-listing (60 s); with no proxy: ${pct(empty.cpuShare)}`,
      }),
    ];
  },
  async m(log) {
    log(
      `(m) ${TRAFFIC_PROXIES} proxies over 4 simulated hosts: the idle backend of (i), the watched one (stats every 5 s, health every 30 s) and a minimal prober at the same pace (its floor), alternating, ${TRAFFIC_WINDOW_MS / 1000} s each after ${TRAFFIC_WARM_UP_MS / 1000} s of warm-up; an hour of history; then the table scrolled while figures arrive`,
    );
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
