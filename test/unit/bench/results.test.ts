/** bench/results.ts: a figure against its peer and target, as the bench prints it. */
import { describe, expect, it } from 'vitest';
import { formatLine, formatTable, result } from '../../../bench/results.js';

describe('bench results', () => {
  it('gives a time figure its ratio the right way round, and says whether it is met', () => {
    const fast = result({ name: '(g) first render', ours: 116, peer: 200, unit: 'ms', lowerIsBetter: true, target: 1 });
    const slow = result({ name: '(g) first render', ours: 250, peer: 200, unit: 'ms', lowerIsBetter: true, target: 1 });
    expect([fast.ratio, fast.met]).toEqual([1.72, true]);
    expect([slow.ratio, slow.met]).toEqual([0.8, false]);
  });

  it('prints one figure a line as each benchmark ends, with its note, and the same figures in the table', () => {
    const r = result({
      name: '(e) listing 500',
      ours: 60,
      peer: 240,
      unit: 'ms',
      lowerIsBetter: true,
      target: 3,
      note: 'python3-libvirt',
    });
    expect(formatLine(r)).toBe('= (e) listing 500: 60.0 vs 240 ms, 4.00× (≥ 3×: met); python3-libvirt');
    const miss = result({ name: '(i) idle CPU', ours: 1.5, peer: 1, unit: '%', lowerIsBetter: true, target: 1 });
    expect(formatLine(miss)).toBe('= (i) idle CPU: 1.50 vs 1.00 %, 0.67× (≥ 1×: NOT MET)');
    expect(formatTable([r, miss])).toMatch(
      /\(e\) listing 500\s+60\.0 ms\s+240 ms\s+4\.00×\s+≥ 3×\s+met\n\(i\) idle CPU\s+1\.50 %\s+1\.00 %\s+0\.67×\s+≥ 1×\s+NOT MET/,
    );
  });
});
