/**
 * Frame intervals in display refreshes. The scroll benches time frames by the timestamps
 * Chromium gives requestAnimationFrame callbacks, which are the starts of display refreshes:
 * every interval is a whole number of refreshes plus a little jitter (at 60 Hz: 16.7, 33.4,
 * 50.0 or 50.1, 66.7 ms). A frame that took three refreshes took 50 ms, which is inside "no
 * frame over 50 ms"; compared raw, the jitter (50.1 > 50) would count it as over. So each
 * interval is rounded to whole refreshes before it is compared with the budget, and the raw
 * figures are reported beside it.
 */

/**
 * The refresh period, ms: all the intervals' time over the refreshes they span (each
 * interval's count taken against 60 Hz). Each timestamp is rounded to 0.1 ms, so single
 * intervals read 16.6, 16.7 or 16.8 and two-refresh ones 33.3 or 33.4; over a whole scroll
 * the rounding cancels out, where one interval's (16.7) would make three refreshes 50.1 ms.
 * 1000/60 with no intervals.
 */
export function refreshPeriodMs(frames: readonly number[]): number {
  const nominal = 1000 / 60;
  let time = 0;
  let refreshes = 0;
  for (const f of frames) {
    if (!(f > 0)) continue;
    time += f;
    refreshes += Math.max(1, Math.round(f / nominal));
  }
  return refreshes ? time / refreshes : nominal;
}

/** How much longer than a whole number of refreshes an interval may be and still count as that number: timestamp jitter. */
export const JITTER_MS = 1;

/**
 * An interval as whole refreshes, in ms (at least one refresh): rounded down only when it is
 * within {@link JITTER_MS} of a whole number of them, else up, so a long frame never rounds
 * down to the budget.
 */
export function inRefreshes(frameMs: number, periodMs: number): number {
  // To 0.1 ms, the timestamps' own resolution: three refreshes of 16.667 ms are 50.0 ms.
  return Math.round(Math.max(1, Math.ceil((frameMs - JITTER_MS) / periodMs)) * periodMs * 10) / 10;
}

/** How many intervals, in whole refreshes, are longer than `budgetMs` (half a millisecond allowed for the period's own rounding). */
export function framesOver(frames: readonly number[], budgetMs: number, periodMs = refreshPeriodMs(frames)): number {
  return frames.filter((f) => inRefreshes(f, periodMs) > budgetMs + 0.5).length;
}

/** The frame figures both scroll benches report, in whole display refreshes (bench/refresh.ts) and raw. */
export interface FrameFigures {
  /** Median over the rounds of each round's longest frame, in whole refreshes, ms. */
  longestFrameMs: number;
  /** The same from the raw timestamps, ms. */
  rawLongestFrameMs: number;
  /** The refresh period the frames show, ms. */
  refreshMs: number;
  frames: number;
  /** Frames longer than 50 ms in whole refreshes (a three-refresh frame at 60 Hz is 50 ms). */
  framesOver50: number;
  /** Frames whose raw interval is over 50 ms (three-refresh frames of 50.1 ms among them). */
  rawFramesOver50: number;
}

export function frameFigures(frames: readonly number[], longestPerRound: readonly number[]): FrameFigures {
  const refreshMs = refreshPeriodMs(frames);
  return {
    longestFrameMs: median(longestPerRound.map((f) => inRefreshes(f, refreshMs))),
    rawLongestFrameMs: median(longestPerRound),
    refreshMs,
    frames: frames.length,
    framesOver50: framesOver(frames, 50, refreshMs),
    rawFramesOver50: frames.filter((f) => f > 50).length,
  };
}

/** The median (the upper one of an even count), as the benches take it. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
