/**
 * What a view that reads its data once says before it has it: the reading placeholder, or
 * why it could not be read. One component, so every such view words and marks it the same
 * way (the failure is an alert; the placeholder is quiet meta text, not announced).
 */

/**
 * "Cannot read `what`: `error`" as an alert while `error` is set; "Reading `what`…" while
 * there is neither the data nor an error; nothing once `loaded`.
 * `what`: the data as a phrase ("the gateway", "the settings").
 */
export function LoadState({ what, loaded, error }: { what: string; loaded: boolean; error: string | undefined }) {
  if (error) {
    return (
      <p role="alert" className="error">
        Cannot read {what}: {error}
      </p>
    );
  }
  return loaded ? null : <p className="meta">Reading {what}…</p>;
}
