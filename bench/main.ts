/**
 * `npm run bench`: every budget of docs/performance.md measured beside its peer in the
 * same run, as a ratio (these machines are noisy: absolute figures mean little).
 * `--json` prints `[{name, ours, peer, unit, ratio, target, met}]`; `--only a,c` picks.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { appBenches } from './app-benches.js';
import type { Bench } from './bench-kit.js';
import { dataPathBenches } from './data-path-benches.js';
import { gatewayBenches } from './gateway.js';
import { type BenchResult, formatLine, formatTable } from './results.js';

// The benchmarks by letter, in letter order (the order they run in, and docs/performance.md's):
// the data path's (data-path-benches.ts), the app's (app-benches.ts) and the gateway's (gateway.ts).
const benches: Record<string, Bench> = Object.fromEntries(
  Object.entries({ ...dataPathBenches, ...appBenches, ...gatewayBenches }).sort(([x], [y]) => x.localeCompare(y)),
);

/** The row of a benchmark that failed to give its figures (`note`: why): it shows in the table as not met. */
function failed(name: string, note: string): BenchResult {
  return { name: `(${name}) failed`, ours: 0, peer: 0, unit: '', ratio: 0, target: 1, met: false, note };
}

/**
 * Runs one benchmark in a fresh process: peak-RSS figures then belong to that benchmark
 * alone, and one benchmark's garbage does not slow the next.
 */
function runIsolated(name: string, log: (line: string) => void): BenchResult[] {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--only', name, '--json', '--child'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0 && !r.stdout.trim()) {
    log(`(${name}) failed to run (exit ${r.status})`);
    return [failed(name, `exit ${r.status}`)];
  }
  return JSON.parse(r.stdout) as BenchResult[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const onlyArg =
    args.find((a) => a.startsWith('--only='))?.slice(7) ??
    (args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined);
  const names = onlyArg ? onlyArg.split(',') : Object.keys(benches);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const results: BenchResult[] = [];
  for (const name of names) {
    const bench = benches[name];
    if (!bench)
      throw new Error(`unknown benchmark ${JSON.stringify(name)} (known: ${Object.keys(benches).join(', ')})`);
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
      results.push(failed(name, err instanceof Error ? err.message : String(err)));
    }
  }
  process.stdout.write(json ? `${JSON.stringify(results, null, 2)}\n` : `${formatTable(results)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
