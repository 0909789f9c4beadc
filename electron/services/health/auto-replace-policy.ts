/**
 * Which failing proxies auto-replace replaces now (pure: the clock is injected). A proxy is
 * due once its health has been `failing` for `afterMinutes`; at most `maxPerHour`
 * replacements start in any hour (a sliding window, across the fleet), longest-failing
 * first; one proxy is never replaced twice at once, and after an attempt it rests for
 * `afterMinutes` (a replacement that failed leaves the old one failing: it must not be
 * tried again at every round).
 */
import type { AutoReplaceSettings } from '../../../shared/app-settings.js';
import type { HealthState } from '../../../shared/health.js';

const HOUR_MS = 3_600_000;

/** One proxy's health, as the policy needs it. */
export interface HealthFact {
  name: string;
  state: HealthState;
  /** When it entered this state (ms since the epoch). */
  since: number;
}

export interface AutoReplaceDecision {
  /** Start a replacement of each, now (recorded as started). */
  replace: string[];
  /** Due, but the hourly limit is reached: with when the next one may start. */
  held: Array<{ name: string; until: number }>;
}

export class AutoReplacePolicy {
  private readonly starts: number[] = [];
  private readonly busy = new Set<string>();
  private readonly restUntil = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** What to replace now among `facts`, under `settings`; nothing when auto-replace is off. */
  decide(settings: AutoReplaceSettings, facts: readonly HealthFact[]): AutoReplaceDecision {
    if (!settings.enabled) return { replace: [], held: [] };
    const now = this.now();
    while (this.starts.length && this.starts[0]! <= now - HOUR_MS) this.starts.shift();
    const after = settings.afterMinutes * 60_000;
    const due = facts
      .filter(
        (f) =>
          f.state === 'failing' &&
          now - f.since >= after &&
          !this.busy.has(f.name) &&
          (this.restUntil.get(f.name) ?? 0) <= now,
      )
      .sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
    const room = Math.max(0, settings.maxPerHour - this.starts.length);
    const replace = due.slice(0, room).map((f) => f.name);
    for (const name of replace) {
      this.starts.push(now);
      this.busy.add(name);
    }
    const until = (this.starts[0] ?? now) + HOUR_MS;
    return { replace, held: due.slice(room).map((f) => ({ name: f.name, until })) };
  }

  /** A replacement of `name` ended (either way): it rests for `afterMinutes` before it may be due again. */
  ended(settings: AutoReplaceSettings, name: string): void {
    this.busy.delete(name);
    this.restUntil.set(name, this.now() + settings.afterMinutes * 60_000);
  }
}
