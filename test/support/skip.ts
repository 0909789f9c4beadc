/**
 * A test that cannot run here is reported as skipped, with its reason, never as passed.
 *
 * Vitest's JSON report (what scripts/test-summary.mjs reads for `npm test`'s summary) keeps
 * a test's `meta` but not the note given to `ctx.skip(note)`: the reason goes in both, so
 * the default reporter shows it next to the test and the summary lists it.
 */
import type { TestContext } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test did not run (set by {@link skipBecause}; read by scripts/test-summary.mjs). */
    skipReason?: string;
  }
}

/** Ends the running test as skipped, saying why. */
export function skipBecause(ctx: TestContext, reason: string): never {
  ctx.task.meta.skipReason = reason;
  return ctx.skip(reason);
}
