/**
 * The attributes a form field's control gets (renderer/views/Field.tsx): its id,
 * `aria-invalid` while there is a problem, and `aria-describedby` naming the element shown
 * under it (the problem, else the hint, else nothing; both where the hint stays beside the
 * problem).
 */
import type { ReactNode } from 'react';

/** What a field's control is given: spread it onto the input, select or textarea. */
export interface FieldControl {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/**
 * The control's attributes for a field with this id, problem and hint (the elements shown
 * under it). `keepHint`: the hint is shown with the problem, so both describe the control,
 * the problem first.
 */
export function fieldControl(id: string, error: ReactNode, hint: ReactNode, keepHint = false): FieldControl {
  const shown = [error ? `${id}-error` : undefined, hint && (keepHint || !error) ? `${id}-hint` : undefined].filter(
    (s) => s !== undefined,
  );
  return {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': shown.length ? shown.join(' ') : undefined,
  };
}
