/**
 * One proxy's probe latencies over the last hour, in memory only and bounded: a ring of
 * {@link LATENCY_POINTS} (an hour at the 30 s probe pace; a faster pace keeps a shorter
 * span, never more points). Typed arrays: a thousand proxies' hour is under 2 MB, with no
 * object per point. A probe without an answer is stored as NaN and handed out as null.
 */
import type { LatencyPoint } from '../../../shared/health.js';
import { TimeRing } from '../stats/time-ring.js';

/** An hour at the 30 s probe pace. */
export const LATENCY_POINTS = 120;
export const LATENCY_SPAN_MS = 3_600_000;

export class LatencyHistory {
  private readonly ring = new TimeRing(LATENCY_POINTS, 1);

  /** A probe at `at`: its latency, or null when it got no answer. */
  add(at: number, latencyMs: number | null): void {
    this.ring.push(at, [latencyMs ?? Number.NaN]);
  }

  /** The points of the hour before `now`, oldest first. */
  recent(now: number): LatencyPoint[] {
    return this.ring.since(now - LATENCY_SPAN_MS, (at, value) => {
      const ms = value(0);
      return { at, latencyMs: Number.isNaN(ms) ? null : ms };
    });
  }
}
