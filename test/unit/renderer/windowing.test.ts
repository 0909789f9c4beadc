/** The proxies table's windowing math (renderer/windowing.ts): only a window of rows is rendered. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowWindow, scrollToRow } from '../../../renderer/windowing.js';

describe('rowWindow', () => {
  it('renders a screenful plus overscan of 1,000 rows, not all of them', () => {
    const w = rowWindow({ count: 1000, rowHeight: 36, scrollTop: 0, height: 600, overscan: 8 });
    expect(w).toEqual({ start: 0, end: Math.ceil(600 / 36) + 8, offset: 0, total: 36_000 });
    const mid = rowWindow({ count: 1000, rowHeight: 36, scrollTop: 36 * 500, height: 600, overscan: 8 });
    expect(mid.start).toBe(492);
    expect(mid.end).toBe(500 + Math.ceil(600 / 36) + 8);
    expect(mid.offset).toBe(492 * 36);
  });

  it('reaches the last row at the bottom and clamps a scrollTop past the end', () => {
    const w = rowWindow({ count: 1000, rowHeight: 36, scrollTop: 1e9, height: 600, overscan: 2 });
    expect(w.end).toBe(1000);
    expect(w.start).toBe(Math.floor((36_000 - 600) / 36) - 2);
  });

  it('is empty for no rows, and whole for fewer rows than fit', () => {
    expect(rowWindow({ count: 0, rowHeight: 36, scrollTop: 0, height: 600 })).toEqual({
      start: 0,
      end: 0,
      offset: 0,
      total: 0,
    });
    expect(rowWindow({ count: 3, rowHeight: 36, scrollTop: 50, height: 600 })).toMatchObject({ start: 0, end: 3 });
  });

  it('always covers every row that is at least partly visible, and stays small', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 80 }),
        fc.nat(400_000),
        fc.integer({ min: 0, max: 2000 }),
        fc.nat(20),
        (count, rowHeight, scroll, height, overscan) => {
          const w = rowWindow({ count, rowHeight, scrollTop: scroll, height, overscan });
          expect(w.start).toBeGreaterThanOrEqual(0);
          expect(w.end).toBeLessThanOrEqual(count);
          expect(w.start).toBeLessThanOrEqual(w.end);
          expect(w.offset).toBe(w.start * rowHeight);
          const top = Math.min(scroll, Math.max(0, count * rowHeight - height));
          for (let i = Math.floor(top / rowHeight); i < Math.min(count, Math.ceil((top + height) / rowHeight)); i++) {
            expect(i >= w.start && i < w.end).toBe(true);
          }
          expect(w.end - w.start).toBeLessThanOrEqual(Math.ceil(height / rowHeight) + 1 + 2 * overscan);
        },
      ),
    );
  });
});

describe('scrollToRow', () => {
  it('scrolls only as far as needed to show a row', () => {
    expect(scrollToRow({ index: 5, rowHeight: 36, scrollTop: 0, height: 600 })).toBe(0);
    expect(scrollToRow({ index: 100, rowHeight: 36, scrollTop: 0, height: 600 })).toBe(101 * 36 - 600);
    expect(scrollToRow({ index: 2, rowHeight: 36, scrollTop: 360, height: 600 })).toBe(72);
  });
});
