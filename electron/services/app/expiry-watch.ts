/**
 * The app's side of expiry (issue 16): a proxy whose expiry, asked for at its launch, has
 * passed is deleted by the app that sees it, as a task ("Expire NAME"), which the backend
 * log records like any task. Only proxies the open backend has seen are judged (no backend
 * is built for this, no extra listing is made: the fleet watcher's records are enough),
 * and a proxy without an expiry is never touched. Whoever launched it: the expiry was the
 * owner's own request.
 */
import { isExpired } from '../../../shared/fleet-meta.js';
import type { TaskService } from '../tasks/task-service.js';
import type { Live } from './fleet-lifecycle.js';

/** How long after a failed expiry delete the proxy is tried again. */
export const RETRY_MS = 10 * 60_000;

export interface ExpiryWatchOptions {
  live: () => Live | undefined;
  tasks: TaskService;
  now: () => number;
  /** How often the seen proxies are looked at (0 turns it off; tests call {@link ExpiryWatch.sweep}). */
  intervalMs: number;
}

export class ExpiryWatch {
  /** Names whose expiry task is under way: one task per proxy. */
  private readonly running = new Set<string>();
  /** Names whose expiry task failed, and when it may be tried again: a host that is down must not fill Tasks with failures. */
  private readonly retryAt = new Map<string, number>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ExpiryWatchOptions) {
    if (options.intervalMs > 0) {
      this.timer = setInterval(() => this.sweep(), options.intervalMs);
      this.timer.unref();
    }
  }

  /** Starts an expiry task for each seen proxy whose time is up; answers their task ids. */
  sweep(): string[] {
    const live = this.options.live();
    if (!live) return [];
    const now = this.options.now();
    const started: string[] = [];
    for (const proxy of live.watch.seen.values()) {
      const expiresAt = proxy.expiresAt;
      if (!isExpired(expiresAt, now) || this.running.has(proxy.name) || (this.retryAt.get(proxy.name) ?? 0) > now)
        continue;
      this.running.add(proxy.name);
      const id = this.options.tasks.run(
        `Expire ${proxy.name}`,
        async (ctx) => {
          try {
            ctx.step('delete', `expired at ${expiresAt}`);
            const result = await live.backend.provider.delete(proxy.name, { force: true });
            ctx.stepDone();
            live.watch.deleted(proxy.name, result.host);
            this.retryAt.delete(proxy.name);
            return { ...result, expiresAt };
          } catch (err) {
            this.retryAt.set(proxy.name, this.options.now() + RETRY_MS);
            throw err;
          } finally {
            this.running.delete(proxy.name);
          }
        },
        { kind: 'proxies:delete', target: proxy.name, cancellable: false },
      );
      started.push(id);
    }
    return started;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
