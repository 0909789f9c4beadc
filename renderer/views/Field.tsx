/**
 * The one way a form field is written: its label, its control, and under it either the
 * problem (announced) or the hint. The control gets its id, `aria-invalid` while there is a
 * problem, and `aria-describedby` naming what is shown under it, from {@link fieldControl},
 * so no form writes those attributes by hand and none can point at text that is not there.
 */
import type { ReactNode } from 'react';
import { type FieldControl, fieldControl } from '../field-control.js';

export type { FieldControl };

export interface FieldProps {
  id: string;
  label: string;
  /**
   * The field's problem, shown instead of the hint and announced (role=alert). Text, or a
   * block where the problem is a list (the Config view's import problems).
   */
  error?: ReactNode;
  /** False: the problem is not announced by itself (a form whose summary of problems is the alert). */
  announce?: boolean;
  hint?: ReactNode;
  /**
   * True: the hint stays shown above the problem and both describe the control. For the
   * catalog's compact rows, whose hints say what the config's messages take for granted
   * (which URL schemes, where a digest comes from).
   */
  keepHint?: boolean;
  /** True: the label is for assistive technology only, where the panel around says what the control is. */
  hideLabel?: boolean;
  /** A checkbox: the control stands inside its label, before the words, as a checkbox reads. */
  checkbox?: boolean;
  /** Classes added to the field's box (the catalog rows' widths). */
  className?: string;
  /** The control, given its attributes (FieldControl). */
  children: (control: FieldControl) => ReactNode;
}

export function Field({
  id,
  label,
  error,
  announce = true,
  hint,
  keepHint = false,
  hideLabel = false,
  checkbox = false,
  className,
  children,
}: FieldProps) {
  const control = children(fieldControl(id, error, hint, keepHint));
  const hintShown = hint && (keepHint || !error);
  return (
    <div className={['field', checkbox ? 'checkbox' : undefined, className].filter(Boolean).join(' ')}>
      {checkbox ? (
        <label>
          {control} {label}
        </label>
      ) : (
        <>
          <label htmlFor={id} className={hideLabel ? 'visually-hidden' : undefined}>
            {label}
          </label>
          {control}
        </>
      )}
      {hintShown && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <div className="field-error" id={`${id}-error`} role={announce ? 'alert' : undefined}>
          {error}
        </div>
      )}
    </div>
  );
}
