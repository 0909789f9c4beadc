/**
 * The app's side of auto-replace (issue 16; off unless settings.json says
 * `autoReplace.enabled`): every sweep (30 s, the health probe's pace) the health monitor's
 * last figures go through the policy (services/health/auto-replace-policy.ts), and each
 * proxy it names is replaced as a task ("Auto-replace NAME", in Tasks and the backend log,
 * which records every task). Only your own proxies (launched by this user on this
 * workstation), never a replacement under way: two workstations watching one host never
 * replace each other's proxies.
 */
import { AutoReplaceSettingsSchema, type AutoReplaceSettings } from '../../../shared/app-settings.js';
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
  /** How often the health figures are looked at (0 turns the timer off; tests call {@link AutoReplaceWatch.sweep}). */
  intervalMs: number;
  /** Told when a due proxy waits for the hourly limit (the backend log). */
  onHeld?: (name: string, until: number) => void;
}

export class AutoReplaceWatch {
  private readonly policy: AutoReplacePolicy;
  private readonly timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(private readonly options: AutoReplaceWatchOptions) {
    this.policy = new AutoReplacePolicy(options.now);
    if (options.intervalMs > 0) {
      this.timer = setInterval(() => void this.sweep(), options.intervalMs);
      this.timer.unref();
    }
  }

  private async settings(): Promise<AutoReplaceSettings> {
    if (!this.options.settingsFile) return AutoReplaceSettingsSchema.parse({});
    return (await readSettingsOrDefaults(this.options.settingsFile)).autoReplace ?? AutoReplaceSettingsSchema.parse({});
  }

  /** Starts a replace task for each proxy the policy names now; answers their task ids. */
  async sweep(): Promise<string[]> {
    const live = this.options.live();
    if (!live || this.sweeping) return [];
    this.sweeping = true;
    try {
      const settings = await this.settings();
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
    if (this.timer) clearInterval(this.timer);
  }
}
