/**
 * The app's side of auto-replace (issue 16; off unless settings.json says
 * `autoReplace.enabled`): every sweep (at the health probe's pace: 30 s, or the settings'
 * `health.intervalSeconds` when shorter) the health monitor's last figures go through the policy (services/health/auto-replace-policy.ts), and each
 * proxy it names is replaced as a task ("Auto-replace NAME", in Tasks and the backend log,
 * which records every task). Only your own proxies (launched by this user on this
 * workstation), never a replacement under way: two workstations watching one host never
 * replace each other's proxies.
 */
import { type AppSettings, AutoReplaceSettingsSchema, type AutoReplaceSettings } from '../../../shared/app-settings.js';
import { isMine } from '../../../shared/fleet-meta.js';
import { proxyKey, recordKey } from '../../../shared/proxy-key.js';
import { AutoReplacePolicy } from '../health/auto-replace-policy.js';
import { readSettingsOrDefaults } from '../settings/settings-file.js';
import type { TaskService } from '../tasks/task-service.js';
import type { Live } from './fleet-lifecycle.js';

export interface AutoReplaceWatchOptions {
  live: () => Live | undefined;
  tasks: TaskService;
  now: () => number;
  /** The app's settings file; absent: auto-replace stays off. */
  settingsFile?: string;
  /**
   * How often the health figures are looked at, at most (0 turns the timer off; tests call
   * {@link AutoReplaceWatch.sweep}): sooner when the settings' health rounds are shorter, so
   * a replacement is not a whole interval behind the round that saw the proxy fail long enough.
   */
  intervalMs: number;
  /** Told when a due proxy waits for the hourly limit (the backend log). */
  onHeld?: (name: string, until: number) => void;
}

export class AutoReplaceWatch {
  private readonly policy: AutoReplacePolicy;
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private closed = false;
  /** The settings' health pace as of the last sweep (ms), when one is set. */
  private healthPaceMs: number | undefined;

  constructor(private readonly options: AutoReplaceWatchOptions) {
    this.policy = new AutoReplacePolicy(options.now);
    this.schedule();
  }

  /** The next sweep, one pace from now (a timeout chain, so a changed pace applies from the next one). */
  private schedule(): void {
    if (this.closed || this.options.intervalMs <= 0) return;
    const pace = this.paceMs;
    this.timer = setTimeout(
      () =>
        void this.readSettings()
          .then((all) => this.sweepWith(all))
          .catch(() => undefined)
          .then(() => this.schedule()),
      pace,
    );
    this.timer.unref();
  }

  /** The settings file as it is now (none: auto-replace off), and the health pace it sets. */
  private async readSettings(): Promise<Pick<AppSettings, 'autoReplace' | 'health'>> {
    const all: Pick<AppSettings, 'autoReplace' | 'health'> = this.options.settingsFile
      ? await readSettingsOrDefaults(this.options.settingsFile)
      : { health: {} };
    this.healthPaceMs = all.health.intervalSeconds === undefined ? undefined : all.health.intervalSeconds * 1000;
    return all;
  }

  /** Between two sweeps now (the timer's pace). */
  get paceMs(): number {
    return Math.min(this.options.intervalMs, this.healthPaceMs ?? Infinity);
  }

  /** Starts a replace task for each proxy the policy names now; answers their task ids. */
  async sweep(): Promise<string[]> {
    return this.sweepWith(await this.readSettings());
  }

  private async sweepWith(all: Pick<AppSettings, 'autoReplace'>): Promise<string[]> {
    const live = this.options.live();
    if (!live || this.sweeping) return [];
    this.sweeping = true;
    try {
      const settings: AutoReplaceSettings = all.autoReplace ?? AutoReplaceSettingsSchema.parse({});
      if (!settings.enabled) return [];
      const you = live.backend.provider.identity;
      const records = new Map([...live.watch.seen.values()].map((p) => [recordKey(p), p]));
      const facts = live.health.snapshot().proxies.flatMap((h) => {
        const p = records.get(proxyKey(h.host, h.domain));
        return p && !p.replacing && p.launchedBy && isMine(p.launchedBy, you)
          ? [{ name: h.name, state: h.state, since: h.since, lastError: h.lastError }]
          : [];
      });
      const decision = this.policy.decide(settings, facts);
      for (const held of decision.held) this.options.onHeld?.(held.name, held.until);
      return decision.replace.map((name) => {
        const fact = facts.find((f) => f.name === name)!;
        const why = `failing for ${Math.round((this.options.now() - fact.since) / 60_000)} min${fact.lastError ? ` (${fact.lastError})` : ''}`;
        return this.options.tasks.run(
          `Auto-replace ${name}`,
          async (ctx) => {
            try {
              const result = await live.backend.provider.replace(name, {
                signal: ctx.signal,
                onStep: (e) => {
                  if (e.phase === 'start') ctx.step(e.step, e.step === 'validate' ? why : e.message);
                  else if (e.phase === 'done') ctx.stepDone(e.message);
                },
              });
              live.watch.deleted(name, result.old.host, result.old.domain);
              live.watch.changed(result.proxy, 'REPLACED');
              return { reason: why, proxy: result.proxy, replaced: result.old };
            } finally {
              this.policy.ended(settings, name);
            }
          },
          { kind: 'proxies:replace', target: name },
        );
      });
    } finally {
      this.sweeping = false;
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
