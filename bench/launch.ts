/**
 * (d) Launch overhead with a warm cache: what the provider itself spends (validate, place,
 * image, upload check, volumes, seed, define) on qemu:///system with a tiny base that is
 * already cached and uploaded, without waiting for a guest. Starting the QEMU process
 * (DomainCreate, the `boot` step) is reported beside it: that is the hypervisor's time.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { BenchEnv } from './environment.js';
import { tinyHome } from './tiny-home.js';
import { virshQuiet } from './virsh.js';

const CLI = new URL('../electron/cli/main.js', import.meta.url).pathname;

function cli(home: string, config: string, args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, '--config', config, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, EGRESS_DESK_HOME: join(home, 'data') },
  });
  if (r.status !== 0) throw new Error(`egress-desk ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

export interface LaunchFigures {
  /** Median of the provider's own steps, ms. */
  overheadMs: number;
  /** Median of DomainCreate, ms. */
  bootMs: number;
  runs: number;
}

export function launchFigures(env: BenchEnv, runs = 5): LaunchFigures {
  const { home, config, sha256 } = tinyHome(env, 'egress-bench-launch-');
  const name = 'egtest-bench-launch';
  const overheads: number[] = [];
  const boots: number[] = [];
  try {
    // The first launch fills the cache and uploads the base; it is not counted.
    cli(home, config, ['proxies', 'launch', name, '--allow', '192.168.150.0/24', '--json']);
    cli(home, config, ['proxies', 'delete', name]);
    for (let i = 0; i < runs; i++) {
      const r = JSON.parse(cli(home, config, ['proxies', 'launch', name, '--allow', '192.168.150.0/24', '--json'])) as {
        timings: Record<string, number>;
      };
      cli(home, config, ['proxies', 'delete', name]);
      const { boot = 0, ...steps } = r.timings;
      overheads.push(Object.values(steps).reduce((a, b) => a + b, 0));
      boots.push(boot);
    }
  } finally {
    spawnSync(process.execPath, [CLI, '--config', config, 'proxies', 'delete', name], {
      env: { PATH: process.env.PATH, HOME: home, EGRESS_DESK_HOME: join(home, 'data') },
    });
    virshQuiet('vol-delete', '--pool', env.EGRESS_TEST_POOL, `egress-base-${sha256}.qcow2`);
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  return { overheadMs: median(overheads), bootMs: median(boots), runs };
}
