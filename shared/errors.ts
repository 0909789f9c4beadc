/** What every layer says about a failure it did not raise itself. */

/** The message of anything thrown: an Error's own message, else the value as text (never a stack). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
