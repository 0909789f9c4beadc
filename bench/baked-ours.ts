/**
 * (j) ours: the CLI's `proxies launch --wait` on the unbaked image with the site mirror, then
 * `images bake`, then the launch on the baked base with no mirror at all; each launch timed
 * from the call to the CLI's `proxy` step done (the app saying ready).
 */
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { LAUNCH_TIMEOUT_S, PORT, checkForwards } from './baked-check.js';
import type { BenchEnv } from './environment.js';
import { CLI, exited, type namespaceHttpServer, spawnLaunchWait } from './guest-setup.js';
import { virshQuiet, volumes } from './virsh.js';

const OURS = 'egtest-bench-j';

/** ours in one round, ms. */
export interface OursTimes {
  /** ours, unbaked, packages from the mirror: launch call to the app saying ready, ms. */
  firstMs: number;
  /** `images bake` on the host, ms (for scale: it is paid once per host and image). */
  bakeMs: number;
  /** ours on the baked base, no mirror: launch call to ready, ms. */
  bakedMs: number;
}

/** The CLI's home for the bench: its directory, the two configs (with the mirror, without) and its environment. */
export interface Home {
  dir: string;
  mirrorConfig: string;
  plainConfig: string;
  env: NodeJS.ProcessEnv;
}

function cli(h: Home, config: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, '--config', config, ...args], {
    env: h.env,
    encoding: 'utf8',
    timeout: 30 * 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One `proxies launch --wait`: ms from the call to its `proxy` step done, and its progress lines. */
async function oursLaunch(
  env: BenchEnv,
  h: Home,
  config: string,
): Promise<{ ms: number; url: string; lines: string[] }> {
  const t0 = Date.now();
  const launch = spawnLaunchWait(env, { config, childEnv: h.env, name: OURS, timeoutS: LAUNCH_TIMEOUT_S, port: PORT });
  let stdout = '';
  launch.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  let readyAt = 0;
  const lines: string[] = [];
  for await (const line of createInterface({ input: launch.stderr })) {
    lines.push(line);
    if (!readyAt && /^\s+proxy done/.test(line)) readyAt = Date.now();
  }
  const code = await exited(launch);
  if (code !== 0 || !readyAt)
    throw new Error(`the launch did not say ready (exit ${code}): ${lines.slice(-5).join(' | ')}`);
  return { ms: readyAt - t0, url: stdout.trim(), lines };
}

/** Deletes ours, whether it is there or not. */
export function oursDelete(h: Home): void {
  spawnSync(process.execPath, [CLI, '--config', h.plainConfig, 'proxies', 'delete', OURS], {
    env: h.env,
    stdio: 'ignore',
    timeout: 300_000,
  });
}

/** ours: the first launch (mirror), the bake, the baked launch (no mirror); the proxy and the baked volume removed after. */
export async function oursRound(
  env: BenchEnv,
  h: Home,
  baked: string,
  mirror: ReturnType<typeof namespaceHttpServer>,
  log: (line: string) => void,
): Promise<OursTimes> {
  try {
    const before = mirror.requests().length;
    const first = await oursLaunch(env, h, h.mirrorConfig);
    const base = first.lines.find((l) => /^\s+base done/.test(l)) ?? '';
    if (base.includes(baked)) throw new Error(`the first launch used the baked base: ${base.trim()}`);
    const fetched = mirror.requests().slice(before).join('\n');
    if (!/tinyproxy_[^ ]+\.deb/.test(fetched))
      throw new Error('the first launch did not fetch tinyproxy from the mirror');
    checkForwards(env, first.url, 'ours, first launch');
    log(`(j)   ours, first launch (mirror): ${(first.ms / 1000).toFixed(1)} s to ready; ${base.trim()}`);
    oursDelete(h);

    const t0 = Date.now();
    const b = cli(h, h.mirrorConfig, 'images', 'bake', 'guest', '--host', 'local');
    const bakeMs = Date.now() - t0;
    if (b.code !== 0 || !b.stdout.includes(baked))
      throw new Error(`images bake failed (exit ${b.code}): ${b.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    log(`(j)   ours, images bake: ${(bakeMs / 1000).toFixed(1)} s`);

    // The server's log lines arrive as events: let those of the bake (a synchronous spawn) in first.
    await sleep(1000);
    const quiet = mirror.requests().length;
    const second = await oursLaunch(env, h, h.plainConfig);
    const bakedBase = second.lines.find((l) => /^\s+base done/.test(l)) ?? '';
    if (!bakedBase.includes(baked))
      throw new Error(
        `the launch after the bake did not use the baked base: ${bakedBase.trim() || second.lines.slice(-5).join(' | ')}`,
      );
    const asked = mirror.requests().slice(quiet);
    if (asked.length > 0) throw new Error(`the baked launch asked the mirror: ${asked.join(' | ')}`);
    checkForwards(env, second.url, 'ours, baked');
    log(`(j)   ours, baked, no mirror: ${(second.ms / 1000).toFixed(1)} s to ready`);
    return { firstMs: first.ms, bakeMs, bakedMs: second.ms };
  } finally {
    oursDelete(h);
    if (volumes(env.EGRESS_TEST_POOL).includes(baked)) virshQuiet('vol-delete', '--pool', env.EGRESS_TEST_POOL, baked);
  }
}
