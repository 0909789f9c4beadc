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
  /** The field's problem, shown instead of the hint and announced (role=alert). */
  error?: string | undefined;
  /** False: the problem is not announced by itself (a form whose summary of problems is the alert). */
  announce?: boolean;
  hint?: ReactNode;
  /** The control, given its attributes (FieldControl). */
  children: (control: FieldControl) => ReactNode;
}

export function Field({ id, label, error, announce = true, hint, children }: FieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(fieldControl(id, error, hint))}
      {error ? (
        <span className="field-error" id={`${id}-error`} role={announce ? 'alert' : undefined}>
          {error}
        </span>
      ) : (
        hint && (
          <span className="hint" id={`${id}-hint`}>
            {hint}
          </span>
        )
      )}
    </div>
  );
}
