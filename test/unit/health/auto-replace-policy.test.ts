/** The auto-replace policy on an injected clock: failing for N minutes, at most M an hour, one at a time per proxy, a rest after each attempt. */
import { describe, expect, it } from 'vitest';
import { AutoReplaceSettingsSchema } from '../../../shared/app-settings.js';
import { AutoReplacePolicy, type HealthFact } from '../../../electron/services/health/auto-replace-policy.js';

const MIN = 60_000;

describe('AutoReplacePolicy', () => {
  it('is off by default (settings.json without autoReplace, or enabled false)', () => {
    const t = 100 * MIN;
    const policy = new AutoReplacePolicy(() => t);
    const defaults = AutoReplaceSettingsSchema.parse({});
    expect(defaults).toEqual({ enabled: false, afterMinutes: 10, maxPerHour: 2 });
    expect(policy.decide(defaults, [{ name: 'a', state: 'failing', since: 0 }])).toEqual({ replace: [], held: [] });
  });

  it('replaces a proxy failing for N minutes, not before, and never one that is only slow or unknown', () => {
    let t = 0;
    const policy = new AutoReplacePolicy(() => t);
    const settings = AutoReplaceSettingsSchema.parse({ enabled: true, afterMinutes: 5, maxPerHour: 10 });
    const facts: HealthFact[] = [
      { name: 'failing', state: 'failing', since: 0 },
      { name: 'slow', state: 'slow', since: 0 },
      { name: 'unknown', state: 'unknown', since: 0 },
    ];
    t = 5 * MIN - 1;
    expect(policy.decide(settings, facts).replace).toEqual([]);
    t = 5 * MIN;
    expect(policy.decide(settings, facts).replace).toEqual(['failing']);
    // Under way: not started twice.
    t = 6 * MIN;
    expect(policy.decide(settings, facts).replace).toEqual([]);
    // Ended (it failed: the old one still fails): it rests N minutes, then is due again.
    policy.ended(settings, 'failing');
    t = 11 * MIN - 1;
    expect(policy.decide(settings, facts).replace).toEqual([]);
    t = 11 * MIN;
    expect(policy.decide(settings, facts).replace).toEqual(['failing']);
  });

  it('starts at most M an hour, longest-failing first, and says which are held until when', () => {
    let t = 60 * MIN;
    const policy = new AutoReplacePolicy(() => t);
    const settings = AutoReplaceSettingsSchema.parse({ enabled: true, afterMinutes: 1, maxPerHour: 2 });
    const facts: HealthFact[] = ['c', 'a', 'b'].map((name, i) => ({ name, state: 'failing' as const, since: i * MIN }));
    const first = policy.decide(settings, facts);
    expect(first.replace).toEqual(['c', 'a']);
    expect(first.held).toEqual([{ name: 'b', until: 120 * MIN }]);
    for (const n of first.replace) policy.ended(settings, n);
    t = 120 * MIN - 1;
    expect(policy.decide(settings, facts).replace).toEqual([]);
    t = 120 * MIN;
    // The hour has passed: two more, the longest-failing first again.
    expect(policy.decide(settings, facts)).toEqual({ replace: ['c', 'a'], held: [{ name: 'b', until: 180 * MIN }] });
  });
});
