/**
 * Download progress: bytes so far, a smoothed rate and an ETA, emitted at most ~10 times a
 * second however small the network's chunks are, so that a UI or a terminal line never
 * becomes the bottleneck of a fast download.
 */

/** What a caller of `ensure` sees while an image arrives. */
export interface ImageProgress {
  /** What is happening: downloading; re-reading a partial file before resuming; waiting for another process's download. */
  phase: 'download' | 'rehash' | 'wait';
  /** Bytes of the image present so far (including a resumed partial's). */
  bytes: number;
  /** The image's size, when the server said it. */
  total?: number;
  /** Bytes per second, smoothed over the last few seconds (0 until there are two samples). */
  rate: number;
  /** Seconds left at the current rate, when the total is known and the rate is not zero. */
  etaSeconds?: number;
}

/** Smoothing time constant: the rate follows changes within a few seconds, without jitter. */
const RATE_TAU_MS = 3000;

/**
 * Turns a stream of byte counts into throttled {@link ImageProgress} events. `now` is
 * injected so that tests can drive time.
 */
export class ProgressMeter {
  private lastEmit = Number.NEGATIVE_INFINITY;
  private lastSample?: { at: number; bytes: number } | undefined;
  private rate = 0;
  private latest?: ImageProgress;

  constructor(
    private readonly emit: (p: ImageProgress) => void,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = 100,
  ) {}

  /** The last progress emitted (for a caller that joins a download already under way). */
  get current(): ImageProgress | undefined {
    return this.latest;
  }

  /**
   * Records that `bytes` are present. The rate is sampled only when an event is due, so a
   * burst of tiny chunks costs one subtraction each. `force` emits regardless of the throttle.
   */
  update(phase: ImageProgress['phase'], bytes: number, total: number | undefined, force = false): void {
    const at = this.now();
    if (!force && at - this.lastEmit < this.intervalMs) return;
    const last = this.lastSample;
    if (phase !== 'download' || last === undefined || bytes < last.bytes) {
      // A new phase or a restart: rates across it mean nothing.
      if (phase !== 'download' || (last !== undefined && bytes < last.bytes)) this.rate = 0;
      this.lastSample = phase === 'download' ? { at, bytes } : undefined;
    } else if (at > last.at) {
      const instant = ((bytes - last.bytes) * 1000) / (at - last.at);
      const alpha = this.rate === 0 ? 1 : 1 - Math.exp(-(at - last.at) / RATE_TAU_MS);
      this.rate = this.rate + alpha * (instant - this.rate);
      this.lastSample = { at, bytes };
    }
    this.lastEmit = at;
    const p: ImageProgress = { phase, bytes, rate: Math.round(this.rate) };
    if (total !== undefined) {
      p.total = total;
      if (this.rate > 0 && phase === 'download') p.etaSeconds = Math.max(0, Math.ceil((total - bytes) / this.rate));
    }
    this.latest = p;
    this.emit(p);
  }
}
