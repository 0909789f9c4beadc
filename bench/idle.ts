/**
 * (i) The app's backend holding a fleet, idle: `egress-desk serve` (the same AppService,
 * hosts, provider and events the Electron main process runs) with its page open in
 * Chromium showing every proxy, then left alone. Measured from /proc: resident memory
 * (VmRSS, and the peak VmHWM) and the CPU time spent over an idle window long enough to
 * include one background re-listing (every 60 s). The peer is the same process with an
 * empty fleet, in the same run: what the fleet itself costs is the difference.
 *
 * Electron's own browser process is not here (no Electron binary on these machines): the
 * figure is the backend's, which is what grows with the fleet.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { VIEWPORT, launchChromium } from './browser/chromium.js';
import { startServeProcess } from './browser/serve.js';
import type { BenchEnv } from './environment.js';
import { tinyHome } from './tiny-home.js';

const CLI = fileURLToPath(new URL('../../bin/egress-desk.js', import.meta.url));
/** Longer than the 60 s background re-listing, so one falls inside the window. */
export const IDLE_WINDOW_MS = 65_000;

export interface IdleFigures {
  proxies: number;
  rssBytes: number;
  peakRssBytes: number;
  /** CPU seconds over the idle window divided by its wall-clock seconds. */
  cpuShare: number;
}

function procStatus(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(line.split(/\s+/)[1]) * 1024;
}

/** utime + stime of a process, in seconds (fields 14 and 15 of /proc/PID/stat, in clock ticks of 1/100 s on Linux). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Opens the app on a fleet of `expected` proxies, waits until the table shows them all, then measures the idle window. */
export async function idleFigures(env: BenchEnv, expected: number, log: (line: string) => void): Promise<IdleFigures> {
  // Nothing is launched: any config on the test host will do.
  const { home } = tinyHome(env, 'egress-bench-idle-');
  // EGRESS_BENCH_PROFILE_DIR: the backend writes a CPU profile there when it exits (node --cpu-prof).
  const profile = process.env.EGRESS_BENCH_PROFILE_DIR;
  const serve = await startServeProcess(
    CLI,
    { HOME: home, EGRESS_DESK_HOME: home },
    [],
    20_000,
    undefined,
    profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  );
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: VIEWPORT })).newPage();
    await page.goto(serve.url);
    const counter = `${expected} of ${expected}`;
    await page.getByText(counter, { exact: true }).waitFor({ timeout: 120_000 });
    const pid = serve.child.pid!;
    // Let the start-up garbage settle before the window opens.
    await new Promise((r) => setTimeout(r, 5_000));
    const cpu0 = cpuSeconds(pid);
    const t0 = Date.now();
    log(`(i) ${expected} proxies shown; idle for ${IDLE_WINDOW_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
    const cpuShare = (cpuSeconds(pid) - cpu0) / ((Date.now() - t0) / 1000);
    return { proxies: expected, rssBytes: procStatus(pid, 'VmRSS'), peakRssBytes: procStatus(pid, 'VmHWM'), cpuShare };
  } finally {
    await browser.close();
    await serve.stop();
  }
}
