/**
 * One proxy's probe latencies over the last hour, in memory only and bounded: a ring of
 * {@link LATENCY_POINTS} (an hour at the 30 s probe pace; a faster pace keeps a shorter
 * span, never more points). Typed arrays: a thousand proxies' hour is under 2 MB, with no
 * object per point. A probe without an answer is stored as NaN and handed out as null.
 */
import type { LatencyPoint } from '../../../shared/health.js';

/** An hour at the 30 s probe pace. */
export const LATENCY_POINTS = 120;
export const LATENCY_SPAN_MS = 3_600_000;

export class LatencyHistory {
  private readonly at = new Float64Array(LATENCY_POINTS);
  private readonly ms = new Float32Array(LATENCY_POINTS);
  private next = 0;
  private size = 0;

  /** A probe at `at`: its latency, or null when it got no answer. */
  add(at: number, latencyMs: number | null): void {
    this.at[this.next] = at;
    this.ms[this.next] = latencyMs ?? Number.NaN;
    this.next = (this.next + 1) % LATENCY_POINTS;
    this.size = Math.min(this.size + 1, LATENCY_POINTS);
  }

  /** The points of the hour before `now`, oldest first. */
  recent(now: number): LatencyPoint[] {
    const out: LatencyPoint[] = [];
    for (let k = 0; k < this.size; k++) {
      const slot = (this.next - this.size + k + LATENCY_POINTS) % LATENCY_POINTS;
      const at = this.at[slot]!;
      if (at < now - LATENCY_SPAN_MS) continue;
      const ms = this.ms[slot]!;
      out.push({ at, latencyMs: Number.isNaN(ms) ? null : ms });
    }
    return out;
  }
}
