/** A benchmark figure beside its peer from the same run, and whether it meets its target. */
export interface BenchResult {
  name: string;
  ours: number;
  peer: number;
  /** Unit of ours and peer, e.g. `calls/s` or `MiB/s` (higher is better) or `ms` (lower is better). */
  unit: string;
  /** ours / peer for rates; peer / ours for times: above 1 means we are better. */
  ratio: number;
  /** The ratio the budget asks for. */
  target: number;
  met: boolean;
  /** What the peer is, and anything a reader needs to weigh the figure. */
  note?: string;
}

export function result(r: Omit<BenchResult, 'ratio' | 'met'> & { lowerIsBetter?: boolean }): BenchResult {
  const { lowerIsBetter, ...rest } = r;
  const ratio = lowerIsBetter ? r.peer / r.ours : r.ours / r.peer;
  return { ...rest, ratio: Math.round(ratio * 100) / 100, met: ratio >= r.target };
}

export function formatTable(results: readonly BenchResult[]): string {
  const rows = results.map((r) => [
    r.name,
    `${fmt(r.ours)} ${r.unit}`,
    `${fmt(r.peer)} ${r.unit}`,
    `${r.ratio.toFixed(2)}×`,
    `≥ ${r.target}×`,
    r.met ? 'met' : 'NOT MET',
  ]);
  const head = ['benchmark', 'ours', 'peer', 'ratio', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const notes = results.filter((r) => r.note).map((r) => `  ${r.name}: ${r.note}`);
  return [line(head), ...rows.map(line), ...(notes.length ? ['', 'notes:', ...notes] : [])].join('\n');
}

/** One figure on a line: printed as each benchmark ends, so a long run's figures outlive its interruption. */
export function formatLine(r: BenchResult): string {
  return `= ${r.name}: ${fmt(r.ours)} vs ${fmt(r.peer)} ${r.unit}, ${r.ratio.toFixed(2)}× (≥ ${r.target}×: ${r.met ? 'met' : 'NOT MET'})${r.note ? `; ${r.note}` : ''}`;
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toString() : n.toFixed(n >= 10 ? 1 : 2);
}
