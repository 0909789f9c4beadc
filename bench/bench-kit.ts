/**
 * What the benchmarks of `npm run bench` (bench/main.ts) share: the shape of one, the test
 * environment read when one needs it, where they write, and the alternating rounds whose
 * medians make a figure on a noisy machine.
 */
import { type BenchEnv, benchEnv } from './environment.js';
import type { BenchResult } from './results.js';

/** One benchmark: logs what it does, returns its figures. */
export type Bench = (log: (line: string) => void) => Promise<BenchResult[]>;

export const MIB = 1024 * 1024;

// Read when a benchmark needs it: (g) runs without the test environment.
let loadedEnv: BenchEnv | undefined;
/** The test environment (env.json), read at the first call. */
export const env = (): BenchEnv => (loadedEnv ??= benchEnv());
export const BENCH_DIR = process.env.EGRESS_BENCH_DIR ?? '/var/tmp/egress-bench';

/** Rounds per figure: runs of ours and of the peer alternate, and each side's median counts (the machine is noisy). */
export const ROUNDS = 5;

export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs each measurement ROUNDS times, alternating who goes first, and returns the medians. */
export async function interleaved(measures: Array<() => Promise<number> | number>): Promise<number[]> {
  const runs: number[][] = measures.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = measures.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) runs[i]!.push(await measures[i]!());
  }
  return runs.map(median);
}
