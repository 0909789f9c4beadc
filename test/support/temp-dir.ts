/**
 * Temporary directories that remove themselves: `tempDir(prefix)` makes one under the OS
 * temp folder and notes it; test/setup/temp-dirs.ts (a setup file of every lane) removes
 * every one noted once the test file has finished, after the file's own afterAll hooks
 * (hooks run as a stack), so that a process a test file stops in its afterAll is gone first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new directory `<tmp>/<prefix>XXXXXX`, removed when the test file has finished. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory {@link tempDir} made so far (what the setup file calls). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.clear();
}
