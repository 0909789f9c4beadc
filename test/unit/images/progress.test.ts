import { describe, expect, it } from 'vitest';
import { type ImageProgress, ProgressMeter } from '../../../electron/services/images/progress.js';

describe('ProgressMeter', () => {
  it('emits at most every 100 ms, with a smoothed rate and an ETA', () => {
    let t = 0;
    const events: ImageProgress[] = [];
    const meter = new ProgressMeter(
      (p) => events.push(p),
      () => t,
    );
    for (let i = 1; i <= 1000; i++) {
      t = i * 10; // a chunk of 1 MB every 10 ms: 100 MB/s
      meter.update('download', i * 1_000_000, 2_000_000_000);
    }
    expect(events.length).toBeGreaterThanOrEqual(99);
    expect(events.length).toBeLessThanOrEqual(101);
    const last = events.at(-1)!;
    expect(last.rate).toBeCloseTo(100_000_000, -6);
    expect(last.etaSeconds).toBeGreaterThanOrEqual(10);
    expect(last.etaSeconds).toBeLessThanOrEqual(11);
    expect(meter.current).toBe(last);
  });

  it('forced updates always emit; a restart resets the rate; other phases carry no rate', () => {
    let t = 0;
    const events: ImageProgress[] = [];
    const meter = new ProgressMeter(
      (p) => events.push(p),
      () => t,
    );
    meter.update('rehash', 5, 10, true);
    meter.update('download', 5, 10, true);
    t = 1000;
    meter.update('download', 10, 10, true);
    t = 1001;
    meter.update('download', 1, 10, true);
    expect(events.map((e) => [e.phase, e.bytes, e.rate])).toEqual([
      ['rehash', 5, 0],
      ['download', 5, 0],
      ['download', 10, 5],
      ['download', 1, 0],
    ]);
    expect(events[0]!.etaSeconds).toBeUndefined();
  });
});
