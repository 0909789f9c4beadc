/**
 * What the seed ISO tests share (seed-iso.test.ts, the builder and our reader;
 * seed-iso-readers.test.ts, other readers): the NoCloud files, a work directory for
 * images written to disk, and running the tools the test environment installs.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { SeedFile } from '../../../electron/services/provider/kvm/guest/seed-iso.js';
import { tempDir } from '../../support/temp-dir.js';

export const SECTOR = 2048;
export const USER_DATA = '#cloud-config\n# ünïcødé: 日本語, emoji 🚀, RTL שלום\nhostname: ep-web-1\n';
export const META_DATA = 'instance-id: ep-web-1-k3x9q2\nlocal-hostname: ep-web-1\n';

export const noCloudFiles: SeedFile[] = [
  { name: 'user-data', data: USER_DATA },
  { name: 'meta-data', data: META_DATA },
  { name: 'vendor-data', data: '' },
];

export const asBuffer = (data: Uint8Array | string) =>
  typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);

export function run(
  cmd: string,
  args: string[],
): { status: number | null; stdout: string; stderr: string; error?: Error } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ...(r.error ? { error: r.error } : {}) };
}

/** Runs a tool the test environment provides; a missing tool fails the test with what to install. */
export function tool(cmd: string, args: string[], pkg: string): string {
  const r = run(cmd, args);
  if (r.error)
    throw new Error(`${cmd} is not available (${r.error.message}): apt-get install -y --no-install-recommends ${pkg}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** The test file's work directory: made before its tests (beforeAll), removed after them. */
export interface WorkDir {
  readonly path: string;
  /** Writes `iso` into the work directory as `name`; returns its path. */
  writeIso(name: string, iso: Buffer): string;
}

export function useWorkDir(): WorkDir {
  let path = '';
  beforeAll(() => {
    path = tempDir('seed-iso-test-');
  });
  afterAll(() => rmSync(path, { recursive: true, force: true }));
  return {
    get path() {
      return path;
    },
    writeIso(name, iso) {
      const file = join(path, name);
      writeFileSync(file, iso);
      return file;
    },
  };
}
