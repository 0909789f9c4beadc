/**
 * Pool jobs libvirt refuses while another job runs on the same pool or volume: a refresh
 * while a volume is being built or uploaded ("pool 'p' has asynchronous jobs running."),
 * a delete while a stream is still open on the volume ("volume 'v' is still in use.") or
 * while it is being allocated. One process serialises its own pool jobs (host-queue.ts);
 * across processes (the app beside the CLI, a script, another workstation) only waiting
 * and asking again helps, which is what a person would do. The refusal happens before
 * libvirt changes anything, so asking again is safe.
 */
import { LibvirtError } from '../../../libvirt/index.js';

const BUSY = /has asynchronous jobs running|is still in use|is still being allocated/i;

/** True when libvirt refused a pool or volume job only because another one is running. */
export function isPoolBusy(err: unknown): boolean {
  return err instanceof LibvirtError && BUSY.test(err.message);
}

export interface BusyRetry {
  /** Give up after this long (default 60 s: an upload of another process can take that). */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Runs `job`, asking again with backoff (100 ms doubling to 2 s) while libvirt says the pool is busy. */
export async function retryWhilePoolBusy<T>(job: () => Promise<T>, options: BusyRetry = {}): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + (options.maxWaitMs ?? 60_000);
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      return await job();
    } catch (err) {
      if (!isPoolBusy(err) || now() + delay > deadline) throw err;
      await sleep(delay);
    }
  }
}
