/** Polling for the slow lanes (guests boot in minutes). */
import { messageOf } from '../../shared/errors.js';

/** Polls `probe` every `everyMs` until it returns a value; fails after `ms` naming what it waited for and what it saw last. */
export async function waitFor<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | undefined> | T | undefined,
  everyMs = 1000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${ms / 1000} s waiting for ${what}${last ? ` (last: ${messageOf(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
