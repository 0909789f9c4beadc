/**
 * What an action's answer was when the backend refused it, announced under the form or
 * dialog that asked: "Not saved: <why>". One component for every dialog's refusal, so each
 * says it the same way (role=alert, the error style).
 */

/** `what`: what did not happen ("Not saved", "Not removed"); nothing is shown while `error` is undefined. */
export function Refusal({ what, error }: { what: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {what}: {error}
    </p>
  );
}
