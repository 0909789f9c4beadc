/**
 * Undoing a launch (launch.ts): each object a launch creates is recorded with its undo, and
 * a failure runs the undos of exactly those objects, newest first, on a reopened
 * connection when the one the launch used was lost.
 */
import { messageOf } from '../../../../../shared/errors.js';
import { isLostConnection } from '../errors.js';

/** One created object's undo, and what it is, for the message when it cannot be undone. */
export interface Undo {
  what: string;
  run: () => Promise<void>;
}

/** How long a rollback waits for a host whose connection is gone (its daemon restarting) to come back. */
export const ROLLBACK_RECONNECT_MS = 60_000;

/**
 * Runs the undos newest first; returns what could not be undone. An undo that fails because
 * the connection is gone (the daemon restarted under the launch, an SSH session cut) is
 * tried again on a reopened connection until the host is back or {@link ROLLBACK_RECONNECT_MS}
 * passes: a launch's leftovers are removed once the daemon returns, not left for reconcile.
 */
export async function rollback(undos: Undo[], now: () => number = Date.now): Promise<string[]> {
  const failed: string[] = [];
  const deadline = now() + ROLLBACK_RECONNECT_MS;
  for (const undo of [...undos].reverse()) {
    for (let pause = 250; ; pause = Math.min(pause * 2, 2_000)) {
      try {
        await undo.run();
        break;
      } catch (err) {
        if (!isLostConnection(err) || now() + pause > deadline) {
          failed.push(`${undo.what}: ${messageOf(err)}`);
          break;
        }
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }
  undos.length = 0;
  return failed;
}
