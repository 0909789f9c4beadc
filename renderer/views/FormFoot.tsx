/**
 * The foot of a settings-like form (a form showing what is in force, edited in place): why
 * the last Save did not save, then Save and Discard changes. One component, so the Settings
 * and Gateway views refuse, save and discard with the same words and the same rules.
 */
import type { ReactNode } from 'react';

/**
 * The form's refusals and its buttons. Save is the form's submit; both buttons are disabled
 * while nothing differs from what is in force or a save is under way.
 */
export function FormFoot({
  refusals,
  invalid,
  changed,
  saving,
  onDiscard,
  children,
}: {
  /** Why the backend did not save, each "Cannot save: …" in one alert; nothing while empty. */
  refusals: readonly string[];
  /**
   * How many fields need fixing. Their messages are under them and not announced there
   * (Field's `announce={false}`), so this alert is the one that says the save did not happen.
   */
  invalid: number;
  changed: boolean;
  saving: boolean;
  /** Puts the form back to what is in force and forgets its problems. */
  onDiscard: () => void;
  /** After the buttons, on their line (a "Saved." status). */
  children?: ReactNode;
}) {
  return (
    <>
      {refusals.length > 0 && (
        <div role="alert" className="error">
          {refusals.map((r) => (
            <p key={r}>Cannot save: {r}</p>
          ))}
        </div>
      )}
      {invalid > 0 && (
        <p role="alert" className="error">
          Not saved: {invalid === 1 ? 'a field needs' : 'some fields need'} fixing (shown under{' '}
          {invalid === 1 ? 'it' : 'each'}).
        </p>
      )}
      <div className="settings-actions">
        <button type="submit" className="primary" disabled={!changed || saving}>
          {saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" disabled={!changed || saving} onClick={onDiscard}>
          Discard changes
        </button>
        {children}
      </div>
    </>
  );
}
