/**
 * One proxy's rates over time, in memory only and bounded: the last hour point by point
 * (one point a sample, at most {@link FINE_POINTS}: an hour at 5 s), and before that one
 * averaged point per {@link COARSE_BUCKET_MS} for a day. Typed arrays keep a thousand
 * proxies' day within a few tens of MB (28 KB each) with no object per point.
 */
import { RATE_FIELDS, type Rates } from './rates.js';
import { TimeRing } from './time-ring.js';

/** An hour at the 5 s cadence. */
export const FINE_POINTS = 720;
export const FINE_SPAN_MS = 3_600_000;
export const COARSE_BUCKET_MS = 300_000;
/** A day of 5-minute points. */
export const COARSE_POINTS = 288;

const IN = RATE_FIELDS.indexOf('inBps');
const OUT = RATE_FIELDS.indexOf('outBps');

/** A point of the history: when, and the rates of the interval that ended then. */
export type RatePoint = { at: number } & Rates;

/** A ring of rate points: one number per {@link RATE_FIELDS} entry. */
class Ring {
  private readonly ring: TimeRing;

  constructor(capacity: number) {
    this.ring = new TimeRing(capacity, RATE_FIELDS.length);
  }

  push(at: number, rates: Rates): void {
    this.ring.push(
      at,
      RATE_FIELDS.map((f) => rates[f]),
    );
  }

  /** In + out bytes a second of the points at or after `since`, oldest first; the newest `limit` of them. */
  totals(since: number, limit: number): number[] {
    return this.ring.since(since, (_, value) => Math.round(value(IN) + value(OUT)), limit);
  }

  /** The points at or after `since`, oldest first; with `limit`, the newest `limit` of them. */
  points(since: number, limit?: number): RatePoint[] {
    return this.ring.since(
      since,
      (at, value) => {
        const p = { at } as RatePoint;
        RATE_FIELDS.forEach((f, i) => (p[f] = value(i)));
        return p;
      },
      limit,
    );
  }
}

export class RateHistory {
  // Made at the first point: a proxy that never runs (a stopped fleet of 1,000) holds no
  // 28 KB of empty rings, and a sample does not spend its time allocating them.
  private fine: Ring | undefined;
  private coarse: Ring | undefined;
  /** The coarse bucket being filled: its start, the time it covers so far and the time-weighted sums. */
  private bucket: { start: number; weight: number; sums: number[] } | undefined;

  /** Adds the rates of the `spanMs` ending at `at` (`spanMs` weighs them in the coarse average). */
  add(at: number, rates: Rates, spanMs: number): void {
    (this.fine ??= new Ring(FINE_POINTS)).push(at, rates);
    const start = Math.floor(at / COARSE_BUCKET_MS) * COARSE_BUCKET_MS;
    if (this.bucket && this.bucket.start !== start) this.closeBucket();
    this.bucket ??= { start, weight: 0, sums: RATE_FIELDS.map(() => 0) };
    const w = Math.max(spanMs, 1);
    this.bucket.weight += w;
    RATE_FIELDS.forEach((f, i) => (this.bucket!.sums[i]! += rates[f] * w));
  }

  /** The last hour before `now`, point by point; with `limit`, only its newest `limit` points. */
  recent(now: number, limit?: number): RatePoint[] {
    return this.fine?.points(now - FINE_SPAN_MS, limit) ?? [];
  }

  /**
   * The total rate (in + out bytes a second) of the last hour's newest `limit` points, oldest
   * first: what a table's sparkline draws, without the other four fields and the times (a
   * thousand proxies' 60 points are 0.67 MB of JSON this way, 5.4 MB as points: bench (m)).
   */
  recentTotals(now: number, limit: number): number[] {
    return this.fine?.totals(now - FINE_SPAN_MS, limit) ?? [];
  }

  /** The day before `now`, one averaged point per 5 minutes (stamped at its bucket's end); the bucket being filled last. */
  daily(now: number): RatePoint[] {
    const since = now - COARSE_POINTS * COARSE_BUCKET_MS;
    const out = this.coarse?.points(since) ?? [];
    if (this.bucket) out.push(this.average(this.bucket));
    return out;
  }

  private closeBucket(): void {
    const b = this.bucket!;
    const p = this.average(b);
    (this.coarse ??= new Ring(COARSE_POINTS)).push(p.at, p);
    this.bucket = undefined;
  }

  private average(b: { start: number; weight: number; sums: number[] }): RatePoint {
    const p = { at: b.start + COARSE_BUCKET_MS } as RatePoint;
    RATE_FIELDS.forEach((f, i) => (p[f] = b.sums[i]! / b.weight));
    return p;
  }
}
