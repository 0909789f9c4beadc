/**
 * A lock file per digest, so that two processes sharing the data directory (the app and
 * the CLI) never write the same partial download. Created with O_EXCL; it holds the
 * owner's pid, host and start time. A lock whose pid is dead on this host is stale and
 * is taken over, so a crash never blocks the cache.
 */
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';

/** What a lock file holds. */
export interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

/** Reads a lock file; undefined when it is absent or unreadable (a half-written lock counts as held). */
export async function readLock(path: string): Promise<LockOwner | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const data = JSON.parse(text) as Partial<LockOwner>;
    if (typeof data.pid === 'number' && typeof data.host === 'string' && typeof data.startedAt === 'string') {
      return { pid: data.pid, host: data.host, startedAt: data.startedAt };
    }
  } catch {
    /* fall through */
  }
  // The owner may be between creating and writing the file: report an owner we cannot judge.
  return { pid: 0, host: '', startedAt: '' };
}

/** True when `pid` is a running process on this machine (EPERM: it runs, as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when `owner` certainly no longer holds its lock: same host and a dead pid. A lock
 * from another host (a shared home directory) or one not yet written is never judged stale.
 */
export function isStale(owner: LockOwner): boolean {
  return owner.host === hostname() && owner.pid > 0 && !pidAlive(owner.pid);
}

/** True when the lock at `path` is held by a live process. */
export async function isLocked(path: string): Promise<boolean> {
  const owner = await readLock(path);
  return owner !== undefined && !isStale(owner);
}

/** Tries once to create the lock; returns its release function, or undefined when it is held. */
export async function tryLock(path: string): Promise<(() => Promise<void>) | undefined> {
  const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const body = JSON.stringify(owner);
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const current = await readLock(path);
    if (current === undefined || !isStale(current)) return undefined;
    await breakStale(path, current);
    return tryLockOnce(path, body);
  }
  try {
    await handle.writeFile(body);
  } finally {
    await handle.close();
  }
  return releaser(path, body);
}

async function tryLockOnce(path: string, body: string): Promise<(() => Promise<void>) | undefined> {
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(body);
    } finally {
      await handle.close();
    }
    return releaser(path, body);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  }
}

/**
 * Removes a stale lock without ever removing a live one: the lock is first renamed aside
 * (atomic: of two breakers only one gets the file), then judged again; a lock that turns
 * out to be live (someone took over in between) is linked back, which fails rather than
 * replaces if a third process created one meanwhile.
 */
async function breakStale(path: string, seen: LockOwner): Promise<void> {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(path, aside);
  } catch {
    return; // Someone else broke it first.
  }
  const moved = await readLock(aside);
  const same = moved !== undefined && moved.pid === seen.pid && moved.startedAt === seen.startedAt;
  if (!same && moved !== undefined && !isStale(moved)) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/** Release removes the lock only while it is still ours (a takeover after a freeze must survive). */
function releaser(path: string, body: string): () => Promise<void> {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === body) await unlink(path).catch(() => undefined);
  };
}
