/**
 * (l) Readiness: from the proxy port accepting connections, seen from inside the test
 * namespace by a tight probe of our own (bench/port-watch.ts: a connect every 10 ms), to
 * the app saying ready, on a real guest launch of the preinstalled test image.
 *
 * Each round launches with the CLI (`proxies launch NAME --wait`, the app's own launch and
 * readiness path: lifecycle events and short, bounded rounds of address sources and port
 * probes), reading its progress lines as they are written. When the `address` step
 * finishes (the guest has a lease, long before cloud-init has configured and started
 * tinyproxy), the probe starts on that address; the `proxy` step finishing is the app
 * saying ready. Both instants are Date.now() of processes on this machine. A round whose
 * probe found the port open at its first attempt did not see the opening: it is not counted.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { BenchEnv } from './environment.js';
import { CLI, PORT_WATCH, exited, guestCliEnv, guestConfig, guestImage, spawnLaunchWait } from './guest-setup.js';

const NAME = 'egtest-bench-ready';
const PORT = 3128;

export interface ReadinessRound {
  /** The port accepted the probe's connection (ms since the epoch). */
  openAt: number;
  /** The app said ready (its `proxy` step done). */
  readyAt: number;
  /** The address step done (the probe started then). */
  addressAt: number;
  launchAt: number;
  attempts: number;
  openAtFirst: boolean;
}

export interface ReadinessFigures {
  /** readyAt − openAt of each counted round, ms. */
  latenciesMs: number[];
  rounds: ReadinessRound[];
  /** Launch to ready, ms, per round (the guest's boot under TCG, for scale). */
  launchToReadyMs: number[];
}

function home(env: BenchEnv): { home: string; config: string; env: NodeJS.ProcessEnv } {
  // The preinstalled guest image (test/env/guest-image.sh; built once and cached).
  const image = guestImage();
  const dir = mkdtempSync(join(tmpdir(), 'egress-bench-l-'));
  const config = join(dir, 'config.yaml');
  // The test network has no mirror: the vendor-data installs nothing (the image has tinyproxy and the agent).
  writeFileSync(config, guestConfig(env, image));
  return { home: dir, config, env: guestCliEnv(env, dir) };
}

async function round(env: BenchEnv, h: ReturnType<typeof home>, log: (line: string) => void): Promise<ReadinessRound> {
  const launchAt = Date.now();
  const launch = spawnLaunchWait(env, { config: h.config, childEnv: h.env, name: NAME, timeoutS: 300, port: PORT });
  launch.stdout.resume();
  let addressAt = 0;
  let readyAt = 0;
  let watcher: Promise<{ openAt: number; attempts: number; openAtFirst: boolean }> | undefined;
  const lines: string[] = [];
  for await (const line of createInterface({ input: launch.stderr })) {
    const at = Date.now();
    lines.push(line);
    const address = /^\s+address done: (\d+\.\d+\.\d+\.\d+)/.exec(line)?.[1];
    if (address && !watcher) {
      addressAt = at;
      const w = spawn(
        'ip',
        ['netns', 'exec', env.EGRESS_TEST_NETNS, process.execPath, PORT_WATCH, address, String(PORT), '300000'],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      w.stdout.on('data', (c: Buffer) => (out += c.toString()));
      watcher = exited(w).then((code) => {
        if (code !== 0) throw new Error(`port-watch exited ${code}`);
        return JSON.parse(out) as { openAt: number; attempts: number; openAtFirst: boolean };
      });
    }
    if (/^\s+proxy done/.test(line)) readyAt = at;
  }
  const code = await exited(launch);
  if (code !== 0 || !readyAt || !watcher)
    throw new Error(`the launch did not say ready (exit ${code}): ${lines.slice(-5).join(' | ')}`);
  const seen = await watcher;
  log(
    `(l)   launch to ready ${((readyAt - launchAt) / 1000).toFixed(1)} s; port open → ready ${readyAt - seen.openAt} ms (${seen.attempts} probe attempts from the address step)`,
  );
  return { ...seen, readyAt, addressAt, launchAt };
}

function remove(h: ReturnType<typeof home>): void {
  spawnSync(process.execPath, [CLI, '--config', h.config, 'proxies', 'delete', NAME], { env: h.env, stdio: 'ignore' });
}

/** `rounds` launches, each removed after; the base volume stays in the pool, as the guest lane leaves it. */
export async function readinessFigures(
  env: BenchEnv,
  log: (line: string) => void,
  rounds = 3,
): Promise<ReadinessFigures> {
  const h = home(env);
  const all: ReadinessRound[] = [];
  try {
    remove(h); // a round interrupted earlier
    for (let i = 0; i < rounds; i++) {
      log(`(l) round ${i + 1}: launching ${NAME} on the preinstalled image`);
      try {
        all.push(await round(env, h, log));
      } finally {
        remove(h);
      }
    }
  } finally {
    remove(h);
  }
  const counted = all.filter((r) => !r.openAtFirst);
  return {
    latenciesMs: counted.map((r) => r.readyAt - r.openAt),
    rounds: all,
    launchToReadyMs: all.map((r) => r.readyAt - r.launchAt),
  };
}
