/**
 * The attributes a form field's control gets (renderer/views/Field.tsx): its id,
 * `aria-invalid` while there is a problem, and `aria-describedby` naming the element shown
 * under it (the problem, else the hint, else nothing).
 */
import type { ReactNode } from 'react';

/** What a field's control is given: spread it onto the input, select or textarea. */
export interface FieldControl {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** The control's attributes for a field with this id, problem and hint (the element shown under it). */
export function fieldControl(id: string, error: string | undefined, hint: ReactNode): FieldControl {
  return { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? `${id}-error` : hint ? `${id}-hint` : undefined };
}
