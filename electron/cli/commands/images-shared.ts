/** What the image commands share: the cache's place, download progress on stderr, Ctrl-C, tables. */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ImageProgress } from '../../services/images/progress.js';
import { formatBytes } from '../../../shared/bytes.js';
import type { CliContext } from '../context.js';

/** The cache every front end shares: `<data dir>/images`. */
export function imageCacheDir(ctx: CliContext): string {
  return join(ctx.dataDir, 'images');
}

/** True when the stream is a terminal (the context may say so for in-process tests). */
export const isTTY = (ctx: CliContext, stream: 'stdin' | 'stdout' | 'stderr'): boolean =>
  ctx.io.isTTY?.[stream] ?? Boolean(process[stream].isTTY);

/**
 * Runs `work` with a signal that Ctrl-C (SIGINT) or SIGTERM aborts: a download stops
 * cleanly, its partial flushed, and the next attempt resumes it.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * Progress on stderr: one line rewritten in place on a terminal; elsewhere (logs, CI)
 * a plain line every few seconds, so that a log shows progress without thousands of lines.
 */
export class ProgressPrinter {
  private readonly tty: boolean;
  private lastPlain = 0;
  private lastPhase?: ImageProgress['phase'];
  private drawn = false;

  constructor(
    private readonly ctx: CliContext,
    private readonly name: string,
  ) {
    this.tty = isTTY(ctx, 'stderr');
  }

  update(p: ImageProgress): void {
    const text = `${this.name}: ${describeProgress(p)}`;
    if (this.tty) {
      this.ctx.io.stderr(`\r\x1b[K${text}`);
      this.drawn = true;
      return;
    }
    const now = Date.now();
    if (p.phase === this.lastPhase && now - this.lastPlain < 5000) return;
    this.lastPhase = p.phase;
    this.lastPlain = now;
    this.ctx.io.stderr(`${text}\n`);
  }

  end(): void {
    if (this.drawn) this.ctx.io.stderr('\r\x1b[K');
    this.drawn = false;
  }
}

function describeProgress(p: ImageProgress): string {
  const of =
    p.total !== undefined ? ` of ${formatBytes(p.total)} (${Math.floor((p.bytes * 100) / Math.max(1, p.total))}%)` : '';
  if (p.phase === 'rehash') return `checking ${formatBytes(p.bytes)}${of} already downloaded before resuming`;
  if (p.phase === 'wait') return `another process is downloading it: ${formatBytes(p.bytes)}${of}; waiting`;
  const rate = p.rate > 0 ? `, ${formatBytes(p.rate)}/s` : '';
  const eta = p.etaSeconds !== undefined ? `, ${formatDuration(p.etaSeconds)} left` : '';
  return `${formatBytes(p.bytes)}${of}${rate}${eta}`;
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** Columns padded to their widest cell; the last column is not padded. */
export function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) => `${r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}\n`)
    .join('');
}

/** Asks on stderr, reads one line from stdin; end of input counts as no. */
export async function ask(ctx: CliContext, question: string): Promise<string> {
  ctx.io.stderr(question);
  const rl = createInterface({ input: ctx.io.stdin ?? process.stdin, terminal: false });
  try {
    return await new Promise<string>((resolve) => {
      rl.once('line', (line) => resolve(line.trim()));
      rl.once('close', () => resolve(''));
    });
  } finally {
    rl.close();
  }
}
