import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson } from '../../../electron/services/app/same-json.js';

/** JSON text with keys in one order: what "says the same" means. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

describe('sameJson', () => {
  it('agrees with comparing canonical JSON text', () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(
        fc.constant(undefined),
        fc.constant(null),
        fc.boolean(),
        fc.integer({ min: -3, max: 3 }),
        fc.constantFrom('a', 'b', ''),
      ),
      node: fc.oneof(
        { depthSize: 'small' },
        tie('leaf'),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(sameJson(a, b)).toBe(canonical(a) === canonical(b));
        expect(sameJson(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('ignores undefined properties and key order; tells arrays from objects', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameJson({ a: [1, { c: 'x' }] }, { a: [1, { c: 'y' }] })).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
  });
});
