/**
 * The auto-replace sweep's pace (electron/services/app/auto-replace-watch.ts): at most its
 * interval, and sooner when settings.json's health rounds are shorter, so a replacement is
 * not a whole interval behind the round that saw the proxy fail long enough. A changed file
 * applies from the sweep after it is read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AutoReplaceWatch } from '../../../electron/services/app/auto-replace-watch.js';
import { TaskService } from '../../../electron/services/tasks/task-service.js';

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function settingsFile(health: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'egress-ar-pace-'));
  dirs.push(dir);
  const file = join(dir, 'settings.json');
  writeFileSync(file, JSON.stringify({ health }));
  return file;
}

/** Lets the timer's file read (real I/O, not a timer) end. */
const readEnds = () => new Promise((r) => setImmediate(r)).then(() => new Promise((r) => setImmediate(r)));

describe("the auto-replace sweep's pace", () => {
  it('follows shorter health rounds, never longer than its own interval, and takes a change from the next sweep', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const file = settingsFile({ intervalSeconds: 10 });
    let live = 0;
    const watch = new AutoReplaceWatch({
      live: () => (live++, undefined),
      tasks: new TaskService(),
      now: Date.now,
      settingsFile: file,
      intervalMs: 30_000,
    });
    expect(watch.paceMs).toBe(30_000); // nothing read yet
    await vi.advanceTimersByTimeAsync(30_000);
    await vi.waitFor(() => expect(live).toBe(1));
    await readEnds();
    expect(watch.paceMs).toBe(10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    await vi.waitFor(() => expect(live).toBe(2));
    // Longer than the watch's own interval: the interval stays the most.
    writeFileSync(file, JSON.stringify({ health: { intervalSeconds: 120 } }));
    await readEnds();
    await vi.advanceTimersByTimeAsync(10_000);
    await vi.waitFor(() => expect(live).toBe(3));
    await readEnds();
    expect(watch.paceMs).toBe(30_000);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(live).toBe(3);
    watch.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(live).toBe(3);
  });
});
