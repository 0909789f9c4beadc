/** Label, selector, time-to-live and ownership text: what the CLI and the app's filter box accept. */
import { describe, expect, it } from 'vitest';
import {
  LabelsSchema,
  countdown,
  expiryFrom,
  isExpired,
  isMine,
  matchesSelector,
  parseLabel,
  parseSelector,
} from '../../../shared/fleet-meta.js';
import { checkTarget, matching, refuseOthers } from '../../../electron/cli/commands/proxies-select.js';
import { sampleRecordView } from '../../support/proxy-samples.js';

const NOW = Date.parse('2026-12-03T08:00:00.000Z');

describe('labels and selectors', () => {
  it('parses key=value, refusing what the metadata could not hold safely', () => {
    expect(parseLabel('env=prod')).toEqual(['env', 'prod']);
    expect(parseLabel('team.name=a_b-1.2')).toEqual(['team.name', 'a_b-1.2']);
    for (const bad of [
      'env',
      '=prod',
      'env=',
      'Env=prod',
      'env=a b',
      'env=<x>',
      'env=a"b',
      `${'k'.repeat(64)}=v`,
      `k=${'v'.repeat(64)}`,
      'env=a=b',
    ])
      expect(() => parseLabel(bad), bad).toThrow();
  });

  it('a selector is pairs joined by commas; each must match', () => {
    const sel = parseSelector('env=prod, team=web');
    expect(sel).toEqual({ env: 'prod', team: 'web' });
    expect(matchesSelector({ env: 'prod', team: 'web', x: 'y' }, sel)).toBe(true);
    expect(matchesSelector({ env: 'prod' }, sel)).toBe(false);
    expect(matchesSelector(undefined, sel)).toBe(false);
    expect(() => parseSelector(' , ')).toThrow(/key=value/);
  });

  it('bounds the count and checks every key, "__proto__" too', () => {
    expect(
      LabelsSchema.safeParse(Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, 'v']))).success,
    ).toBe(true);
    expect(
      LabelsSchema.safeParse(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']))).success,
    ).toBe(false);
    expect(LabelsSchema.safeParse(JSON.parse('{"__proto__":"x"}')).success).toBe(false);
  });
});

describe('time to live', () => {
  it('takes durations and future ISO dates; refuses the rest', () => {
    expect(expiryFrom('8h', NOW)).toBe('2026-12-03T16:00:00.000Z');
    expect(expiryFrom('90m', NOW)).toBe('2026-12-03T09:30:00.000Z');
    expect(expiryFrom('1d12h', NOW)).toBe('2026-12-04T20:00:00.000Z');
    expect(expiryFrom('2026-12-31T18:00:00Z', NOW)).toBe('2026-12-31T18:00:00.000Z');
    for (const bad of ['', '0h', '8', '8 h', 'tomorrow', '2026-12-01T00:00:00Z', '2026-12-31', '400d'])
      expect(() => expiryFrom(bad, NOW), bad).toThrow(/time to live/);
  });

  it('expired at or after the instant, never without one; the countdown reads both ways', () => {
    expect(isExpired(undefined, NOW)).toBe(false);
    expect(isExpired('2026-12-03T08:00:00.000Z', NOW)).toBe(true);
    expect(isExpired('2026-12-03T08:00:01.000Z', NOW)).toBe(false);
    expect(countdown('2026-12-03T11:12:30.000Z', NOW)).toBe('3h 12m left');
    expect(countdown('2026-12-05T09:00:00.000Z', NOW)).toBe('2d 1h left');
    expect(countdown('2026-12-03T07:55:00.000Z', NOW)).toBe('expired 5m ago');
  });
});

describe('ownership', () => {
  const me = { user: 'alice', workstation: 'Laptop' };
  it("mine = same user on the same workstation (host names compare case-insensitively); unrecorded is nobody's", () => {
    expect(isMine({ user: 'alice', workstation: 'laptop' }, me)).toBe(true);
    expect(isMine({ user: 'alice', workstation: 'desk' }, me)).toBe(false);
    expect(isMine({ user: 'bob', workstation: 'laptop' }, me)).toBe(false);
    expect(isMine(undefined, me)).toBe(false);
  });

  it("the CLI refuses someone else's proxies without --force, naming each owner; a NAME or -l, not both", () => {
    const mine = { ...sampleRecordView({ name: 'a' }), launchedBy: me };
    const theirs = { ...sampleRecordView({ name: 'b' }), launchedBy: { user: 'bob', workstation: 'ws-2' } };
    const old = sampleRecordView({ name: 'c' });
    expect(() => refuseOthers([mine, old], me, 'delete', false)).not.toThrow();
    expect(() => refuseOthers([mine, theirs], me, 'stop', false)).toThrow(
      'not yours: b (launched by bob@ws-2); you are alice@Laptop. Ask them, then stop with --force',
    );
    expect(() => refuseOthers([theirs], me, 'delete', true)).not.toThrow();
    expect(matching([{ ...mine, labels: { env: 'prod' } }, theirs], { env: 'prod' }).map((p) => p.name)).toEqual(['a']);
    expect(() => checkTarget(undefined, undefined)).toThrow(/NAME, or -l/);
    expect(() => checkTarget('a', { env: 'prod' })).toThrow(/not both/);
  });
});
