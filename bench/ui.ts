/**
 * (g) and (h): the renderer, measured in Debian's Chromium through the real
 * `egress-desk serve` and the built renderer (the same path as the browser lane).
 *
 * (g) First render of the Proxies view with 1,000 proxies — from the proxies:list answer
 * reaching the page to the end of the first painted frame with rows — beside the same
 * page with 10 proxies; then scrolling the 1,000 from top to bottom, one viewport per
 * frame, with every frame interval and Chromium's long animation frames recorded, beside
 * the same number of frames on the idle page. The listing and the rows' figures are
 * replaced on the wire (browser/fake-listing.ts's faking, on a real socket through
 * browser/ws-relay.ts); the backend behind serve has one unreachable host, so no real
 * fleet's events disturb the figures.
 *
 * (h) Clicking the Launch dialog's submit to the end of the first painted frame showing a
 * running or done step, on the real backend (the test environment's libvirtd): the call
 * goes through serve's WebSocket, the router and the task service, and the step arrives as
 * a task:update event. Each launch is then cancelled and removed.
 *
 * The page's side in Node (logging in, the timing script's times, CPU time, profiles) is
 * browser/timed-page.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './browser/chromium.js';
import { type FakeAnswers, fakeProxies } from './browser/fake-listing.js';
import { startWsRelay } from './browser/ws-relay.js';
import { fakeHealth, fakeStats } from './browser/fake-figures.js';
import { type FrameFigures, frameFigures, median } from './refresh.js';
import { IDLE_FRAMES_SCRIPT, SCROLL_FOR_SCRIPT, SCROLL_SCRIPT, type ScrollFigures } from './browser/page-timing.js';
import { type ServeProcess, startServeProcess } from './browser/serve.js';
import { openLaunchDialog } from './browser/launch-dialog.js';
import {
  type TimedPage,
  call,
  filled,
  loggedIn,
  profileIfAsked,
  timedPage,
  waitForTime,
} from './browser/timed-page.js';
import type { BenchEnv } from './environment.js';
import { tinyHome } from './tiny-home.js';
import { virshQuiet } from './virsh.js';

/** Rounds to measure, and where the built CLI is. */
export interface UiBenchOptions {
  rounds?: number;
  /** bin/egress-desk.js */
  bin?: string;
  /** dist/electron/cli/main.js */
  cli?: string;
}
// The built CLI, seen from dist/bench/ (the browser lane's test of this file runs it from the sources and passes its own).
const BIN = fileURLToPath(new URL('../../bin/egress-desk.js', import.meta.url));
const CLI = fileURLToPath(new URL('../electron/cli/main.js', import.meta.url));

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** The listing of `proxies`, and figures for every one of them: each row draws what a working fleet shows. */
function fleetAnswers(proxies: ReturnType<typeof fakeProxies>): FakeAnswers {
  return {
    'proxies:list': () => ({ proxies, hosts: [] }),
    'proxies:stats': (input) =>
      fakeStats(proxies, 0, Date.now(), (input as { sparkPoints?: number } | undefined)?.sparkPoints ?? 0),
    'proxies:health': () => fakeHealth(proxies, 0, Date.now()),
  };
}

/**
 * `bin serve` on a new throwaway home (`prefix` names its directory) whose one host is over
 * SSH to a loopback port nobody listens on: the backend answers at once and no fleet exists,
 * so what the page shows is the faked listing and figures alone.
 */
async function startFleetlessServe(bin: string, prefix: string): Promise<ServeProcess> {
  const home = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(
    join(home, 'config.yaml'),
    'type: kvm\nkvm:\n  hosts:\n    - { name: local, address: 127.0.0.1, sshUser: nobody, sshPort: 1, pool: default, network: default }\n',
  );
  return startServeProcess(bin, { EGRESS_DESK_HOME: home, HOME: home });
}

export interface FirstRenderFigures extends FrameFigures {
  /** Medians, ms: 1,000 rows and 10 rows. */
  thousandMs: number;
  tenMs: number;
  /** Median of the part before the frame: answer to the rAF callback that first saw rows (parse, store, React). */
  thousandScriptMs: number;
  /** Median main-thread CPU from the answer being sent to the painted frame being seen, ms (1,000 rows). */
  thousandCpuMs: number;
  /** Mean main-thread CPU per scroll frame, ms (median over rounds). */
  scrollCpuPerFrameMs: number;
  /** The 1-minute load average at the start and the end (2 cores here: above 2 means queueing for CPU). */
  load: [number, number];
  /** Over every scroll round; the longest frame is the median of each round's longest (FrameFigures). */
  longAnimationFrames: number;
  p95FrameMs: number;
  scrollMs: number;
  /** The idle page's longest frame over as many frames (median over rounds): the machine's noise. */
  idleLongestFrameMs: number;
  rounds: number;
}

/** (g): `rounds` alternating rounds of the 1,000-row and 10-row page, each round scrolling the 1,000. */
export async function firstRenderFigures({ rounds = 5, bin = BIN }: UiBenchOptions = {}): Promise<FirstRenderFigures> {
  const serve = await startFleetlessServe(bin, 'egress-bench-ui-');
  const browser = await launchChromium();
  const errors: string[] = [];
  const thousand = fakeProxies(1000);
  const ten = fakeProxies(10);
  // The answers arrive on a real socket, as serve's do (see ws-relay.ts for why not
  // Playwright's routing); one relay a fleet. The page's CPU time is read just before its
  // listing is sent: `onListing` is the page being measured (one at a time).
  let onListing: () => Promise<void> = async () => undefined;
  const beforeAnswer = (channel: string) => (channel === 'proxies:list' ? onListing() : Promise.resolve());
  const relays = new Map([
    [thousand, await startWsRelay(serve.origin, fleetAnswers(thousand), { beforeAnswer })],
    [ten, await startWsRelay(serve.origin, fleetAnswers(ten), { beforeAnswer })],
  ]);
  const runs = {
    thousand: [] as number[],
    thousandScript: [] as number[],
    thousandCpu: [] as number[],
    ten: [] as number[],
    longest: [] as number[],
    idle: [] as number[],
    frames: [] as number[],
    long: [] as number[],
    scrollMs: [] as number[],
    scrollCpu: [] as number[],
  };
  const loadStart = loadavg()[0]!;
  try {
    const context = await loggedIn(browser, serve);
    let pages = 0;
    const render = async (
      proxies: typeof thousand,
    ): Promise<TimedPage & { ms: number; scriptMs: number; cpu: number }> => {
      const timed = await timedPage(context, errors);
      let answerCpu: number | undefined;
      onListing = async () => void (answerCpu ??= await timed.cpuMs());
      const stopProfile = await profileIfAsked(timed.page, `g-render-${proxies.length}-${++pages}`);
      await timed.page.goto(`${relays.get(proxies)!.origin}/`);
      const t = await waitForTime(timed.page, 'rowsPaintedAt').finally(stopProfile);
      const cpu = (await timed.cpuMs()) - answerCpu!;
      return { ...timed, ms: t.rowsPaintedAt! - t.answerAt!, scriptMs: t.rowsAt! - t.answerAt!, cpu };
    };
    // One page of each first, not counted: the browser's caches and the JIT warm up.
    for (const proxies of [thousand, ten]) await (await render(proxies)).page.close();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [ten, thousand] : [thousand, ten];
      for (const proxies of order) {
        const { page, ms, scriptMs, cpu, cpuMs } = await render(proxies);
        if (proxies === ten) {
          runs.ten.push(ms);
          await page.close();
          continue;
        }
        runs.thousand.push(ms);
        runs.thousandScript.push(scriptMs);
        runs.thousandCpu.push(cpu);
        // The rows scrolled are full ones: traffic (with its sparkline) and health drawn.
        await filled(page);
        const cpuBefore = await cpuMs();
        const stopProfile = await profileIfAsked(page, `g-scroll-${round}`);
        const scroll = await call<ScrollFigures>(page, SCROLL_SCRIPT, { lastName: thousand.at(-1)!.name });
        await stopProfile();
        if (!scroll.reachedEnd) throw new Error('the scroll did not bring the last row in');
        runs.longest.push(Math.max(...scroll.frames));
        runs.frames.push(...scroll.frames);
        runs.long.push(...scroll.longFrames);
        runs.scrollMs.push(scroll.totalMs);
        runs.scrollCpu.push(((await cpuMs()) - cpuBefore) / scroll.frames.length);
        const idle = await call<number[]>(page, IDLE_FRAMES_SCRIPT, { count: scroll.frames.length });
        runs.idle.push(Math.max(...idle));
        await page.close();
      }
    }
    if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    for (const relay of relays.values()) await relay.close();
    await serve.stop();
  }
  return {
    thousandMs: median(runs.thousand),
    tenMs: median(runs.ten),
    thousandScriptMs: median(runs.thousandScript),
    thousandCpuMs: median(runs.thousandCpu),
    scrollCpuPerFrameMs: median(runs.scrollCpu),
    load: [loadStart, loadavg()[0]!],
    ...frameFigures(runs.frames, runs.longest),
    longAnimationFrames: runs.long.length,
    p95FrameMs: percentile(runs.frames, 95),
    scrollMs: median(runs.scrollMs),
    idleLongestFrameMs: median(runs.idle),
    rounds,
  };
}

export interface UpdatingScrollFigures extends FrameFigures {
  longAnimationFrames: number;
  p95FrameMs: number;
  /** Figures pushed during the scrolls: proxy:stats (1,000 rows each) and proxy:health. */
  statsPushed: number;
  healthPushed: number;
  /** Main-thread CPU per frame while scrolling and updating (mean, median of the rounds). */
  cpuPerFrameMs: number;
  load: [number, number];
  rounds: number;
}

/** How long each round of (m) scrolls: long enough for six stats pushes and one health push. */
export const UPDATING_SCROLL_MS = 31_000;

/**
 * (m), the renderer's side: the 1,000-row table with every row's figures, scrolled one
 * viewport per frame for {@link UPDATING_SCROLL_MS} while `proxy:stats` for all 1,000
 * arrives every 5 s and `proxy:health` every 30 s (pushed on the page's socket as serve
 * pushes them; the backend behind serve has no fleet of its own, as in (g)).
 */
export async function updatingScrollFigures({
  rounds = 3,
  bin = BIN,
}: UiBenchOptions = {}): Promise<UpdatingScrollFigures> {
  const serve = await startFleetlessServe(bin, 'egress-bench-m-');
  const browser = await launchChromium();
  const errors: string[] = [];
  const proxies = fakeProxies(1000);
  // Pushes on a real socket, as serve's: see ws-relay.ts for why not Playwright's routing.
  const relay = await startWsRelay(serve.origin, fleetAnswers(proxies));
  const runs = { longest: [] as number[], frames: [] as number[], long: [] as number[], cpu: [] as number[] };
  let statsPushed = 0;
  let healthPushed = 0;
  const loadStart = loadavg()[0]!;
  try {
    const context = await loggedIn(browser, serve);
    for (let round = 0; round < rounds; round++) {
      const { page, cpuMs } = await timedPage(context, errors);
      await page.goto(`${relay.origin}/`);
      await waitForTime(page, 'rowsPaintedAt');
      await filled(page);
      let sample = 1;
      const statsTimer = setInterval(() => {
        relay.push('proxy:stats', fakeStats(proxies, sample++, Date.now()));
        statsPushed++;
      }, 5_000);
      // Health a first time mid-way (each round sees one), then every 30 s.
      const pushHealth = () => {
        relay.push('proxy:health', fakeHealth(proxies, sample, Date.now()));
        healthPushed++;
      };
      const healthFirst = setTimeout(pushHealth, 12_500);
      const healthTimer = setInterval(pushHealth, 30_000);
      const cpuBefore = await cpuMs();
      let scroll: { frames: number[]; longFrames: number[] };
      const stopProfile = await profileIfAsked(page, `m-updating-scroll-${round}`);
      try {
        scroll = await call<{ frames: number[]; longFrames: number[] }>(page, SCROLL_FOR_SCRIPT, {
          durationMs: UPDATING_SCROLL_MS,
        });
      } finally {
        await stopProfile();
        clearInterval(statsTimer);
        clearInterval(healthTimer);
        clearTimeout(healthFirst);
      }
      runs.cpu.push(((await cpuMs()) - cpuBefore) / scroll.frames.length);
      runs.longest.push(Math.max(...scroll.frames));
      runs.frames.push(...scroll.frames);
      runs.long.push(...scroll.longFrames);
      await page.close();
    }
    if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    await relay.close();
    await serve.stop();
  }
  return {
    ...frameFigures(runs.frames, runs.longest),
    longAnimationFrames: runs.long.length,
    p95FrameMs: percentile(runs.frames, 95),
    statsPushed,
    healthPushed,
    cpuPerFrameMs: median(runs.cpu),
    load: [loadStart, loadavg()[0]!],
    rounds,
  };
}

export interface LaunchClickFigures {
  /** Median, ms: submit click to the first running/done step painted. */
  stepMs: number;
  /** Median, ms: submit click to the progress view painted (the launch call answered with its task). */
  progressMs: number;
  /** Median, ms: the toolbar's Launch click to the dialog painted (the renderer alone: the floor). */
  dialogMs: number;
  rounds: number;
}

const NAME = 'egtest-bench-h';

/** (h): `rounds` launches through the dialog (plus one not counted), each cancelled and removed. */
export async function launchClickFigures(
  env: BenchEnv,
  { rounds = 5, bin = BIN, cli = CLI }: UiBenchOptions = {},
): Promise<LaunchClickFigures> {
  const tiny = tinyHome(env, 'egress-bench-h-');
  const dataEnv = { EGRESS_DESK_HOME: join(tiny.home, 'data'), HOME: tiny.home };
  const names = Array.from({ length: rounds + 1 }, (_, i) => `${NAME}-${i}`);
  const serve = await startServeProcess(bin, dataEnv, ['--config', tiny.config]);
  const browser = await launchChromium();
  const errors: string[] = [];
  const runs = { step: [] as number[], progress: [] as number[], dialog: [] as number[] };
  try {
    const context = await loggedIn(browser, serve);
    const { page } = await timedPage(context, errors);
    await page.goto(`${serve.origin}/`);
    for (const [i, name] of names.entries()) {
      const dialog = await openLaunchDialog(page);
      await dialog
        .getByRole('combobox', { name: 'Host' })
        .locator('option', { hasText: 'local (connected)' })
        .waitFor({ state: 'attached', timeout: 60_000 });
      await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
      await dialog.getByRole('combobox', { name: 'Host' }).selectOption('local');
      await dialog.getByRole('textbox', { name: /Allowed clients/ }).fill('192.168.150.0/24');
      await dialog.getByRole('button', { name: 'Launch', exact: true }).click();
      const t = await waitForTime(page, 'stepPaintedAt');
      if (i > 0) {
        runs.step.push(t.stepPaintedAt! - t.submitAt!);
        runs.progress.push(t.progressPaintedAt! - t.submitAt!);
        runs.dialog.push(t.dialogPaintedAt! - t.dialogClickAt!);
      }
      // Cancel: the launch removes what it created. A launch that got too far to cancel is deleted below.
      const progress = page.getByRole('dialog', { name: `Launching ${name}` });
      const cancel = progress.getByRole('button', { name: 'Cancel launch' });
      if (await cancel.isVisible()) await cancel.click().catch(() => undefined);
      await progress.getByRole('button', { name: /^Close$/ }).waitFor({ timeout: 120_000 });
      await progress.getByRole('button', { name: /^Close$/ }).click();
      await progress.waitFor({ state: 'detached' });
    }
    if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    await serve.stop();
    const childEnv = { PATH: process.env.PATH, ...dataEnv };
    for (const name of names)
      spawnSync(process.execPath, [cli, '--config', tiny.config, 'proxies', 'delete', name], { env: childEnv });
    virshQuiet('vol-delete', '--pool', env.EGRESS_TEST_POOL, `egress-base-${tiny.sha256}.qcow2`);
  }
  return { stepMs: median(runs.step), progressMs: median(runs.progress), dialogMs: median(runs.dialog), rounds };
}
