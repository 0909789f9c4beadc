/**
 * A fixed-size ring of timed points held in typed arrays (no object per point): the
 * oldest point is overwritten once it is full. Each point is a time and `width` numbers.
 * The stats history (rate-history.ts) and the health monitor's latency history
 * (health/latency-history.ts) both keep their bounded, in-memory hour in one.
 */
export class TimeRing {
  private readonly at: Float64Array;
  private readonly values: Float32Array;
  private next = 0;
  private size = 0;

  constructor(
    private readonly capacity: number,
    private readonly width: number,
  ) {
    this.at = new Float64Array(capacity);
    this.values = new Float32Array(capacity * width);
  }

  /** Adds a point: `values` holds its `width` numbers, in order. */
  push(at: number, values: ArrayLike<number>): void {
    this.at[this.next] = at;
    for (let i = 0; i < this.width; i++) this.values[this.next * this.width + i] = values[i]!;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /**
   * The points at or after `since`, oldest first, each made by `read` (`value(i)` is its
   * i-th number); with `limit`, only the newest `limit` of them (the older are never read).
   */
  since<T>(since: number, read: (at: number, value: (i: number) => number) => T, limit = Infinity): T[] {
    const out: T[] = [];
    for (let k = Math.max(0, this.size - limit); k < this.size; k++) {
      const slot = (this.next - this.size + k + this.capacity) % this.capacity;
      const at = this.at[slot]!;
      if (at < since) continue;
      out.push(read(at, (i) => this.values[slot * this.width + i]!));
    }
    return out;
  }
}
