/**
 * Shared settings of the fuzz files (docs/reliability.md, "Fuzzing"). Every property runs
 * at least {@link FUZZ_RUNS} cases; `EGRESS_FUZZ_RUNS` asks for more (a longer hunt on a
 * quiet machine), never fewer, and `EGRESS_FUZZ_SEED` replays the seed fast-check printed
 * with a failure. Under CI the seed is fixed ({@link CI_FUZZ_SEED}); elsewhere each run hunts
 * with a new one.
 */
import type fc from 'fast-check';

/** The floor the reliability issue set: ten thousand cases per target. */
export const MIN_FUZZ_RUNS = 10_000;

function fromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** Cases per property: at least {@link MIN_FUZZ_RUNS}. */
export const FUZZ_RUNS = Math.max(MIN_FUZZ_RUNS, fromEnv('EGRESS_FUZZ_RUNS') ?? 0);

/**
 * The seed under CI when none is given: a CI run must be red only for a change it tests,
 * never for a case a new random seed happened to find (hunting with fresh seeds is for
 * runs outside CI, which pick one per run and print it with a failure).
 */
export const CI_FUZZ_SEED = 424242;

function underCi(): boolean {
  return ['true', '1', 'yes'].includes(process.env.CI ?? '');
}

/** fast-check parameters for one fuzz property: the case count, and the replay seed when given (a fixed one under CI). */
export function fuzzParams<T>(extra: fc.Parameters<T> = {}): fc.Parameters<T> {
  const seed = fromEnv('EGRESS_FUZZ_SEED') ?? (underCi() ? CI_FUZZ_SEED : undefined);
  return { numRuns: FUZZ_RUNS, ...(seed !== undefined ? { seed } : {}), ...extra };
}

/**
 * The time a fuzz test may take: generous, because the unit lane shares two cores with
 * the other files; a property that needs this much has become slow and should be looked at.
 */
export const FUZZ_TEST_TIMEOUT_MS = 180_000;

/** The name of what was thrown, for assertion messages that say what escaped. */
export function describeThrown(err: unknown): string {
  if (err instanceof Error) return `${err.constructor.name}: ${err.message}\n${err.stack ?? ''}`;
  return `a non-Error value: ${String(err)}`;
}

/**
 * Runs one synchronous case and fails it when it takes longer than `budgetMs` twice in a
 * row: a loop that walks far more than its input (a backtracking pattern, a walk that does
 * not advance) is slow every time, while a machine busy with other work is slow once.
 */
export function withinBudget<T>(budgetMs: number, run: () => T): T {
  for (let attempt = 0; ; attempt++) {
    const started = performance.now();
    const result = run();
    const elapsed = performance.now() - started;
    if (elapsed <= budgetMs) return result;
    if (attempt > 0)
      throw new Error(
        `the case took ${Math.round(elapsed)} ms twice, over its budget of ${budgetMs} ms: work that grows faster than the input`,
      );
  }
}
