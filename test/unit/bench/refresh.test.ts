/** bench/refresh.ts: frame intervals compared with a budget in whole display refreshes. */
import { describe, expect, it } from 'vitest';
import { framesOver, inRefreshes, refreshPeriodMs } from '../../../bench/refresh.js';

describe('frame intervals in refreshes', () => {
  it("finds the refresh period from the whole run, where the timestamps' rounding cancels out", () => {
    expect(refreshPeriodMs([16.6, 16.7, 16.7, 33.4, 33.3, 50.0])).toBeCloseTo(16.667, 2);
    // Mostly two-refresh frames, each read 33.4 or 33.3: 16.67, not 16.7.
    const mostlyTwo = refreshPeriodMs([33.4, 33.3, 33.4, 33.3, 33.4, 33.3, 16.7]);
    expect(mostlyTwo).toBeCloseTo(16.67, 1);
    expect(inRefreshes(50.1, mostlyTwo)).toBe(50);
    expect(refreshPeriodMs([])).toBeCloseTo(1000 / 60);
  });

  it('counts a three-refresh frame at 60 Hz (50.1 ms by its timestamps) as 50 ms, a four-refresh one as over', () => {
    const frames = [16.7, 16.6, 16.7, 33.4, 50.1, 49.9, 66.7, 83.4];
    const period = refreshPeriodMs(frames);
    expect(inRefreshes(50.1, period)).toBe(50);
    expect(inRefreshes(49.9, 1000 / 60)).toBe(50);
    expect(framesOver(frames, 50)).toBe(2);
    // Raw, the jitter would have made three of them "over 50 ms".
    expect(frames.filter((f) => f > 50)).toHaveLength(3);
  });

  it('never rounds a long frame down to the budget', () => {
    // 58 ms is more than jitter beyond three refreshes: it counts as four (66.7 ms), over.
    expect(framesOver([16.7, 16.7, 58], 50)).toBe(1);
    expect(inRefreshes(5, 16.7)).toBeCloseTo(16.7);
    expect(inRefreshes(51.5, 16.7)).toBeCloseTo(66.8);
  });
});
