/**
 * Quitting waits for the services to close (tasks cancelled, host connections closed), but
 * not for ever: a task that ignores its cancellation, or a host that never answers, must not
 * keep the process (and its single-instance lock) alive with no window. Plain code, tested
 * without Electron.
 */

/** How long quitting waits for the services before it exits anyway. */
export const QUIT_DEADLINE_MS = 10_000;

/**
 * Runs `close` and resolves when it settles or after `ms`, whichever comes first: `'closed'`,
 * `'failed'` (it rejected: reported through `onProblem`) or `'timed-out'`.
 */
export async function closeWithin(
  close: () => Promise<unknown>,
  ms: number,
  onProblem: (what: 'failed' | 'timed-out', err?: unknown) => void,
): Promise<'closed' | 'failed' | 'timed-out'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), ms);
    timer.unref();
  });
  const closing = Promise.resolve()
    .then(close)
    .then(
      () => 'closed' as const,
      (err: unknown) => {
        onProblem('failed', err);
        return 'failed' as const;
      },
    );
  try {
    const outcome = await Promise.race([closing, deadline]);
    if (outcome === 'timed-out') onProblem('timed-out');
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}
