/** `egress-desk serve` as a real child process (the built CLI), for the unit and browser lanes. */
import { type ServeProcess, startServeProcess } from '../../bench/browser/serve.js';
import { cliBin } from '../support/dist.js';
import type { RunAs } from '../support/cli.js';
import { cliBinFor } from '../support/user-checkout.js';

export type { ServeProcess } from '../../bench/browser/serve.js';

/**
 * Starts `egress-desk serve --no-open` (as `as`, when given; inside network namespace
 * `netns`, when given) and waits for its link (rejects with its stderr if it exits first).
 * As another user it runs from the view of the checkout that user can reach (rejects at
 * once, saying why, when it cannot: test/support/user-checkout.ts).
 */
export async function startServe(
  env: Record<string, string>,
  args: string[] = [],
  timeoutMs = 20_000,
  as?: RunAs,
  netns?: string,
): Promise<ServeProcess> {
  return startServeProcess(as ? cliBinFor(as) : cliBin, env, args, timeoutMs, as, [], netns);
}
