/** A sparkline's values and its polyline (views/ProxyTraffic.tsx draws it). */

export const SPARK_WIDTH = 64;
export const SPARK_HEIGHT = 18;

/** `values` (oldest first) as polyline points scaled to their own maximum; flat at the bottom when all zero; none below two values. */
export function sparkPoints(values: readonly number[], width = SPARK_WIDTH, height = SPARK_HEIGHT): string {
  if (values.length < 2) return '';
  const max = Math.max(...values);
  const step = width / (values.length - 1);
  return values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - 1 - (max > 0 ? (v / max) * (height - 2) : 0)).toFixed(1)}`)
    .join(' ');
}

/**
 * One row's sparkline: its last `capacity` values in a ring written in place. The stats store
 * keeps one per proxy and adds a sample to it, where it used to make a new array of 60 numbers
 * per proxy and sample: at 1,000 rows every 5 s that was 60,000 numbers copied a push, and the
 * collections after it fell in the frames of bench (m)'s scroll. A row's cell re-renders with
 * its rates (a new object each sample), and reads the ring then; {@link SparkRing.version}
 * says whether the points it made last still hold.
 */
export class SparkRing {
  private readonly values: Float64Array;
  /** Where the next value goes. */
  private next = 0;
  /** Values held, at most the capacity. */
  private held = 0;
  /** Samples ever added: changes with every one. */
  version = 0;
  private made: { version: number; points: string } | undefined;

  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.values = new Float64Array(capacity);
  }

  /** A ring holding the newest `capacity` of `values` (oldest first). */
  static of(values: readonly number[], capacity: number): SparkRing {
    const ring = new SparkRing(capacity);
    for (const v of values.slice(-capacity)) ring.add(v);
    return ring;
  }

  add(value: number): void {
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.capacity;
    this.held = Math.min(this.held + 1, this.capacity);
    this.version++;
  }

  get length(): number {
    return this.held;
  }

  /** The values held, oldest first (a new array). */
  toArray(): number[] {
    const first = this.held < this.capacity ? 0 : this.next;
    return Array.from({ length: this.held }, (_, i) => this.values[(first + i) % this.capacity]!);
  }

  /** {@link sparkPoints} at the default size, made once per sample: a row scrolled back into view, or a slot showing it again, does not format its points again. */
  points(): string {
    if (this.made?.version !== this.version) this.made = { version: this.version, points: sparkPoints(this.toArray()) };
    return this.made.points;
  }
}
