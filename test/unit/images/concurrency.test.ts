import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ImageCache,
  ImageDownloadCancelledError,
  ImageDownloadStalledError,
  type ImageProgress,
} from '../../../electron/services/images/index.js';
import { isStale } from '../../../electron/services/images/lock.js';
import { generatedFile, TestServer } from './server.js';
import { tempDir } from '../../support/temp-dir.js';

let server: TestServer;
let dir: string;
const { file, sha256: digest } = generatedFile(4 * 1024 * 1024);
const image = () => ({ url: server.url('/disk.qcow2'), sha256: digest });
const lockPath = () => join(dir, `${digest}.lock`);
const children: Array<{ kill: () => boolean }> = [];

beforeEach(async () => {
  server = await new TestServer().start();
  server.files.set('/disk.qcow2', file);
  dir = join(tempDir('egress-conc-'), 'images');
});
afterEach(async () => {
  for (const c of children.splice(0)) c.kill();
  await server.close();
});

/** A process that stays alive until killed: the "other process" holding a lock. */
function liveProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

function writeLock(pid: number): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(lockPath(), JSON.stringify({ pid, host: hostname(), startedAt: new Date().toISOString() }));
}

const settled = async (p: Promise<unknown>, ms: number): Promise<boolean> => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, ms));
  return done;
};

describe('one download per digest', () => {
  it('ten concurrent ensure() calls make exactly one request, and each gets progress', async () => {
    const cache = new ImageCache({ dir });
    const seen = Array.from({ length: 10 }, () => [] as ImageProgress[]);
    const results = await Promise.all(
      seen.map((events) => cache.ensure(image(), { onProgress: (p) => events.push(p) })),
    );
    expect(server.requests).toHaveLength(1);
    expect(new Set(results.map((r) => r.path)).size).toBe(1);
    for (const r of results) expect(r).toMatchObject({ size: 4 * 1024 * 1024, cached: false });
    for (const events of seen) expect(events.length).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([`${digest}.qcow2`]);
  });

  it('one caller cancelling does not stop the other', async () => {
    const cache = new ImageCache({ dir });
    const a = new AbortController();
    const b = new AbortController();
    const first = cache.ensure(image(), { signal: a.signal, onProgress: () => b.abort() });
    const second = cache.ensure(image(), { signal: b.signal });
    await expect(second).rejects.toThrow(ImageDownloadCancelledError);
    const r = await first;
    expect(readFileSync(r.path).length).toBe(4 * 1024 * 1024);
    expect(server.requests).toHaveLength(1);
  });

  it('when every caller cancels, the download stops and the partial is kept for a resume', async () => {
    const cache = new ImageCache({ dir });
    server.stallAfter = 1024 * 1024;
    const a = new AbortController();
    const b = new AbortController();
    const partial = join(dir, `${digest}.partial`);
    let gotBytes!: () => void;
    const arrived = new Promise<void>((resolve) => (gotBytes = resolve));
    const first = cache.ensure(image(), { signal: a.signal, onProgress: (p) => p.bytes > 0 && gotBytes() });
    const second = cache.ensure(image(), { signal: b.signal });
    await arrived;
    a.abort();
    await expect(first).rejects.toThrow(ImageDownloadCancelledError);
    b.abort();
    await expect(second).rejects.toThrow(/was cancelled; the partial download is kept/);
    // Callers are released at once; the download winds down (closing the partial) just after.
    await expect.poll(() => existsSync(partial) && !existsSync(lockPath())).toBe(true);
    // The lock is released once the flight has wound down; a new call resumes from the partial.
    const r = await cache.ensure(image());
    const kept = server.requests.at(-1)!;
    expect(kept).toMatchObject({ status: 206 });
    expect(kept.headers.range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(statSync(r.path).size).toBe(4 * 1024 * 1024);
    expect(readFileSync(r.path).equals(file.read(0, file.size))).toBe(true);
  });

  it('a signal already aborted is refused at once', async () => {
    await expect(new ImageCache({ dir }).ensure(image(), { signal: AbortSignal.abort() })).rejects.toThrow(
      ImageDownloadCancelledError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('the lock file between processes', () => {
  it("a lock held by another live process makes ensure wait, reporting that process's progress, then use its result", async () => {
    writeLock(liveProcess());
    writeFileSync(join(dir, `${digest}.partial`), Buffer.alloc(1000));
    writeFileSync(join(dir, `${digest}.partial.json`), JSON.stringify({ url: image().url, total: 4 * 1024 * 1024 }));
    const events: ImageProgress[] = [];
    const pending = new ImageCache({ dir, lockPollMs: 50 }).ensure(image(), { onProgress: (p) => events.push(p) });
    expect(await settled(pending, 300)).toBe(false);
    expect(server.requests).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ phase: 'wait', bytes: 1000, total: 4 * 1024 * 1024 });
    // The other process finishes: its verified file appears, its lock goes.
    writeFileSync(join(dir, `${digest}.qcow2`), file.read(0, file.size));
    unlinkSync(join(dir, `${digest}.partial`));
    unlinkSync(join(dir, `${digest}.partial.json`));
    unlinkSync(lockPath());
    const r = await pending;
    expect(r).toMatchObject({ path: join(dir, `${digest}.qcow2`), cached: false });
    expect(server.requests).toHaveLength(0);
  });

  it('a stale lock (its process is dead) is taken over', async () => {
    writeLock(await deadPid());
    const r = await new ImageCache({ dir, lockPollMs: 50 }).ensure(image());
    expect(statSync(r.path).size).toBe(4 * 1024 * 1024);
    expect(server.requests).toHaveLength(1);
    expect(existsSync(lockPath())).toBe(false);
  });

  it("a waiting caller can cancel; the other process's lock is left alone", async () => {
    writeLock(liveProcess());
    const before = readFileSync(lockPath(), 'utf8');
    const ac = new AbortController();
    const pending = new ImageCache({ dir, lockPollMs: 50 }).ensure(image(), { signal: ac.signal });
    setTimeout(() => ac.abort(), 150);
    await expect(pending).rejects.toThrow(ImageDownloadCancelledError);
    expect(readFileSync(lockPath(), 'utf8')).toBe(before);
  });

  it('the lock is held during a download and released after it', async () => {
    server.stallAfter = 1000;
    const cache = new ImageCache({ dir, stallTimeoutMs: 300 });
    const pending = cache.ensure(image());
    await new Promise((r) => setTimeout(r, 100));
    expect(JSON.parse(readFileSync(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    // The server stalls: the download ends with the stall error, and the lock goes with it.
    await expect(pending).rejects.toThrow(ImageDownloadStalledError);
    expect(existsSync(lockPath())).toBe(false);
  });

  it('locks of another host, or not yet written, are never judged stale', () => {
    expect(isStale({ pid: 999_999_999, host: `${hostname()}-other`, startedAt: 'x' })).toBe(false);
    expect(isStale({ pid: 0, host: '', startedAt: '' })).toBe(false);
    expect(isStale({ pid: 999_999_999, host: hostname(), startedAt: 'x' })).toBe(true);
  });
});
