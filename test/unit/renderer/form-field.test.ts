/**
 * The one form field's control attributes (renderer/field-control.ts, given by
 * renderer/views/Field.tsx): the id, `aria-invalid` while there is a problem, and
 * `aria-describedby` naming the problem or the hint shown under it (both, where the hint
 * stays beside the problem), never an element that is not there.
 */
import { describe, expect, it } from 'vitest';
import { fieldControl } from '../../../renderer/field-control.js';

describe('Field', () => {
  it('describes the control by its hint, by its problem instead while there is one, and by nothing without either', () => {
    expect(fieldControl('f', undefined, 'a hint')).toEqual({
      id: 'f',
      'aria-invalid': undefined,
      'aria-describedby': 'f-hint',
    });
    expect(fieldControl('f', 'wrong', 'a hint')).toEqual({
      id: 'f',
      'aria-invalid': true,
      'aria-describedby': 'f-error',
    });
    expect(fieldControl('f', 'wrong', undefined)).toEqual({
      id: 'f',
      'aria-invalid': true,
      'aria-describedby': 'f-error',
    });
    expect(fieldControl('f', undefined, undefined)).toEqual({
      id: 'f',
      'aria-invalid': undefined,
      'aria-describedby': undefined,
    });
  });

  it('with the hint kept beside the problem (the catalog rows), names both, the problem first; a problem without a hint alone', () => {
    expect(fieldControl('f', 'wrong', 'a hint', true)).toEqual({
      id: 'f',
      'aria-invalid': true,
      'aria-describedby': 'f-error f-hint',
    });
    expect(fieldControl('f', undefined, 'a hint', true)).toEqual({
      id: 'f',
      'aria-invalid': undefined,
      'aria-describedby': 'f-hint',
    });
    expect(fieldControl('f', 'wrong', undefined, true)).toEqual({
      id: 'f',
      'aria-invalid': true,
      'aria-describedby': 'f-error',
    });
  });
});
