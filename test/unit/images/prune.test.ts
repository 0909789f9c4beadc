import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ImageCache } from '../../../electron/services/images/index.js';
import { tempDir } from '../../support/temp-dir.js';

let dir: string;
const DAY = 24 * 60 * 60 * 1000;
const now = Date.parse('2025-06-01T00:00:00Z');
const sha = (c: string) => c.repeat(64);

/** Puts a cached image of `size` bytes last used `daysAgo` days before `now`. */
function cached(c: string, size: number, daysAgo: number, ext = 'qcow2'): string {
  const path = join(dir, `${sha(c)}.${ext}`);
  writeFileSync(path, Buffer.alloc(size));
  const t = (now - daysAgo * DAY) / 1000;
  utimesSync(path, t, t);
  return path;
}

function partial(c: string, daysAgo: number): string {
  const path = join(dir, `${sha(c)}.partial`);
  writeFileSync(path, Buffer.alloc(10));
  writeFileSync(`${path}.json`, JSON.stringify({ url: 'http://127.0.0.1/x', total: 100 }));
  const t = (now - daysAgo * DAY) / 1000;
  utimesSync(path, t, t);
  return path;
}

beforeEach(() => {
  dir = join(tempDir('egress-prune-'), 'images');
  mkdirSync(dir);
});

describe('ImageCache.list and prune', () => {
  it('lists verified images with format, size and last use; ignores other files', async () => {
    cached('a', 100, 3);
    cached('b', 200, 1, 'img');
    partial('c', 0);
    writeFileSync(join(dir, 'notes.txt'), 'x');
    const cache = new ImageCache({ dir, now: () => now });
    const list = (await cache.list()).sort((x, y) => x.size - y.size);
    expect(list.map((i) => [i.sha256[0], i.format, i.size, i.lastUsed.getTime()])).toEqual([
      ['a', 'qcow2', 100, now - 3 * DAY],
      ['b', 'raw', 200, now - DAY],
    ]);
    expect(await cache.partials()).toMatchObject([
      { sha256: sha('c'), size: 10, total: 100, url: 'http://127.0.0.1/x' },
    ]);
    expect(await cache.has(sha('a'))).toBe(true);
    expect(await cache.has(sha('c'))).toBe(false);
    expect(await new ImageCache({ dir: join(dir, 'missing') }).list()).toEqual([]);
  });

  it('evicts least recently used first, down to maxBytes', async () => {
    cached('a', 100, 5);
    cached('b', 100, 1);
    cached('c', 100, 3);
    cached('d', 100, 2);
    const removed = await new ImageCache({ dir, now: () => now }).prune({ maxBytes: 250 });
    expect(removed.map((r) => r.sha256?.[0])).toEqual(['a', 'c']);
    expect(removed.every((r) => r.kind === 'image' && r.size === 100)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([`${sha('b')}.qcow2`, `${sha('d')}.qcow2`]);
  });

  it('never removes a kept digest or a locked one (in use by a live process)', async () => {
    cached('a', 100, 5);
    cached('b', 100, 4);
    cached('c', 100, 3);
    writeFileSync(
      join(dir, `${sha('b')}.lock`),
      JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }),
    );
    const removed = await new ImageCache({ dir, now: () => now }).prune({ maxBytes: 0, keep: [sha('a')] });
    expect(removed.map((r) => r.sha256?.[0])).toEqual(['c']);
    expect(existsSync(join(dir, `${sha('a')}.qcow2`))).toBe(true);
    expect(existsSync(join(dir, `${sha('b')}.qcow2`))).toBe(true);
    expect(existsSync(join(dir, `${sha('b')}.lock`))).toBe(true);
  });

  it('removes stale partials (older than 7 days) but keeps recent ones, unless asked to drop every unkept one', async () => {
    const old = partial('a', 8);
    const recent = partial('b', 1);
    const kept = partial('c', 1);
    const cache = new ImageCache({ dir, now: () => now });
    expect((await cache.prune({ maxBytes: Infinity })).map((r) => [r.sha256?.[0], r.kind])).toEqual([['a', 'partial']]);
    expect(existsSync(old) || existsSync(`${old}.json`)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(
      (await cache.prune({ maxBytes: Infinity, keep: [sha('c')], partials: 'unkept' })).map((r) => r.sha256?.[0]),
    ).toEqual(['b']);
    expect(existsSync(kept)).toBe(true);
  });

  it('a dry run reports and removes nothing', async () => {
    cached('a', 100, 5);
    partial('b', 30);
    const before = readdirSync(dir).sort();
    const removed = await new ImageCache({ dir, now: () => now }).prune({ maxBytes: 0, dryRun: true });
    expect(removed.map((r) => [r.sha256?.[0], r.kind])).toEqual([
      ['b', 'partial'],
      ['a', 'image'],
    ]);
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
