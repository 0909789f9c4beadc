/**
 * The windowing math of the proxies table. No virtualisation package is installed (and the
 * renderer keeps its dependencies to react, react-dom and zustand), so the table renders
 * only the rows in view plus an overscan, at a fixed row height: with 1,000 proxies the DOM
 * holds a few dozen rows, not a thousand. Pure functions, unit-tested in test/unit/renderer/.
 */

export interface RowWindow {
  /** The first row to render (inclusive). */
  start: number;
  /** One past the last row to render (exclusive). */
  end: number;
  /** Pixels above the first rendered row (the spacer). */
  offset: number;
  /** The height of every row together: the scroll height. */
  total: number;
}

/** The rows to render for a viewport of `height` px scrolled to `scrollTop`, with `overscan` rows either side. */
export function rowWindow(o: {
  count: number;
  rowHeight: number;
  scrollTop: number;
  height: number;
  overscan?: number;
}): RowWindow {
  const count = Math.max(0, Math.floor(o.count));
  const rowHeight = Math.max(1, o.rowHeight);
  const overscan = Math.max(0, Math.floor(o.overscan ?? 5));
  const total = count * rowHeight;
  const height = Math.max(0, o.height);
  const maxScroll = Math.max(0, total - height);
  const scrollTop = Math.min(Math.max(0, o.scrollTop), maxScroll);
  const first = Math.floor(scrollTop / rowHeight);
  const last = Math.ceil((scrollTop + height) / rowHeight);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, Math.max(last, first + 1) + overscan);
  return { start: Math.min(start, end), end, offset: Math.min(start, end) * rowHeight, total };
}

/** The scrollTop that brings row `index` fully into view (unchanged when it already is). */
export function scrollToRow(o: { index: number; rowHeight: number; scrollTop: number; height: number }): number {
  const top = o.index * o.rowHeight;
  const bottom = top + o.rowHeight;
  if (top < o.scrollTop) return top;
  if (bottom > o.scrollTop + o.height) return Math.max(0, bottom - o.height);
  return o.scrollTop;
}
