/**
 * Which member a gateway request leaves from (electron/services/gateway/member-choice.ts,
 * issue 40): only usable members, the user name's selection, least connections with ties
 * in turn, sticky sessions that move once for good when their member fails, failover
 * within a request, members sidelined after a failed connect, and a bounded session table.
 */
import { describe, expect, it } from 'vitest';
import { type GatewayMember, MemberChooser } from '../../../electron/services/gateway/member-choice.js';
import type { GatewayUser } from '../../../shared/gateway-user.js';

const m = (key: string, over: Partial<GatewayMember> = {}): GatewayMember => ({
  key,
  name: key.split('/')[1]!,
  host: key.split('/')[0]!,
  labels: {},
  usable: true,
  ...over,
});
const A = m('edge-a/p1', { labels: { team: 'web' } });
const B = m('edge-a/p2', { labels: { team: 'db' } });
const C = m('edge-b/p3', { labels: { team: 'web' } });
const FLEET = [A, B, C];
const plain: GatewayUser = { client: 'ci', labels: {} };
const session = (id: string, over: Partial<GatewayUser> = {}): GatewayUser => ({ ...plain, session: id, ...over });

function keyOf(choice: ReturnType<MemberChooser['choose']>): string {
  if ('refusal' in choice) throw new Error(choice.refusal);
  return choice.member.key;
}

describe('MemberChooser', () => {
  it('spreads sequential plain requests evenly, in turn', () => {
    const chooser = new MemberChooser();
    const counts = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const k = keyOf(chooser.choose(plain, FLEET));
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect([...counts.values()]).toEqual([100, 100, 100]);
  });

  it('stays even when a request comes before the previous one has closed (ties go to the least recently chosen)', () => {
    const chooser = new MemberChooser();
    const counts = new Map<string, number>();
    let previous: string | undefined;
    for (let i = 0; i < 300; i++) {
      const k = keyOf(chooser.choose(plain, FLEET));
      counts.set(k, (counts.get(k) ?? 0) + 1);
      // Every third request, the previous member is still open when the next one is chosen.
      if (previous) chooser.closed(previous);
      chooser.opened(k);
      if (i % 3 !== 0) {
        chooser.closed(k);
        previous = undefined;
      } else previous = k;
    }
    expect([...counts.values()].sort()).toEqual([100, 100, 100]);
  });

  it('takes the member with the fewest open connections first', () => {
    const chooser = new MemberChooser();
    chooser.opened(A.key);
    chooser.opened(A.key);
    chooser.opened(B.key);
    expect(keyOf(chooser.choose(plain, FLEET))).toBe(C.key);
    chooser.opened(C.key);
    chooser.opened(C.key);
    expect(keyOf(chooser.choose(plain, FLEET))).toBe(B.key);
    chooser.closed(A.key);
    chooser.closed(A.key);
    expect(chooser.openCount(A.key)).toBe(0);
    expect(keyOf(chooser.choose(plain, FLEET))).toBe(A.key);
  });

  it('never chooses an unusable member, and says why when none is left', () => {
    const chooser = new MemberChooser();
    const fleet = [A, { ...B, usable: false }, { ...C, usable: false }];
    for (let i = 0; i < 10; i++) expect(keyOf(chooser.choose(plain, fleet))).toBe(A.key);
    expect(chooser.choose(plain, [{ ...A, usable: false }])).toEqual({
      refusal: 'no proxy is healthy now (1 known, none healthy or slow)',
    });
    expect(chooser.choose(plain, [])).toEqual({ refusal: 'the fleet has no proxy the gateway can use' });
  });

  it('chooses only members with every label asked for and on the host asked for', () => {
    const chooser = new MemberChooser();
    const web = { ...plain, labels: { team: 'web' } };
    const seen = new Set(Array.from({ length: 20 }, () => keyOf(chooser.choose(web, FLEET))));
    expect([...seen].sort()).toEqual([A.key, C.key]);
    expect(keyOf(chooser.choose({ ...web, host: 'edge-b' }, FLEET))).toBe(C.key);
    expect(chooser.choose({ ...plain, labels: { team: 'web', env: 'prod' } }, FLEET)).toEqual({
      refusal: 'no proxy is labelled team=web and labelled env=prod',
    });
    expect(chooser.choose({ ...plain, host: 'edge-c' }, FLEET)).toEqual({ refusal: 'no proxy is on host edge-c' });
  });

  it('keeps a session on its member; another ID may go elsewhere; the same ID under another selection is another session', () => {
    const chooser = new MemberChooser();
    const first = keyOf(chooser.choose(session('s1'), FLEET));
    for (let i = 0; i < 100; i++) {
      chooser.opened(first); // busier than the others: a session stays all the same
      expect(keyOf(chooser.choose(session('s1'), FLEET))).toBe(first);
    }
    expect(keyOf(chooser.choose(session('s2'), FLEET))).not.toBe(first);
    expect(keyOf(chooser.choose(session('s1', { labels: { team: 'db' } }), FLEET))).toBe(B.key);
    expect(keyOf(chooser.choose(session('s1'), FLEET))).toBe(first);
    expect(chooser.sessionCount).toBe(3);
  });

  it('moves a session whose member failed, says from where, and keeps it on the new member even when the old one is back', () => {
    const chooser = new MemberChooser();
    const first = keyOf(chooser.choose(session('s1'), FLEET));
    const failed = FLEET.map((x) => (x.key === first ? { ...x, usable: false } : x));
    const moved = chooser.choose(session('s1'), failed);
    expect('member' in moved && moved.moved).toEqual({ from: first });
    const next = keyOf(moved);
    expect(next).not.toBe(first);
    for (let i = 0; i < 10; i++) {
      const again = chooser.choose(session('s1'), FLEET);
      expect(keyOf(again)).toBe(next);
      expect('member' in again && again.moved).toBeFalsy();
    }
  });

  it('fails over within a request: members that refused it are not chosen again, and a session moves off them', () => {
    const chooser = new MemberChooser();
    const tried = new Set<string>();
    for (let i = 0; i < FLEET.length; i++) tried.add(keyOf(chooser.choose(plain, FLEET, tried)));
    expect(tried.size).toBe(3);
    expect(chooser.choose(plain, FLEET, tried)).toEqual({
      refusal: 'no other healthy proxy: 3 refused or timed out on connect',
    });
    const first = keyOf(chooser.choose(session('s9'), FLEET));
    const moved = chooser.choose(session('s9'), FLEET, new Set([first]));
    expect(keyOf(moved)).not.toBe(first);
    expect('member' in moved && moved.moved).toEqual({ from: first });
  });

  it('passes over a member that could not be reached for sidelineMs, unless nothing else matches, and moves its sessions', () => {
    let now = 0;
    const chooser = new MemberChooser({ now: () => now, sidelineMs: 30_000 });
    const bound = keyOf(chooser.choose(session('s1'), FLEET));
    chooser.unreachable(bound);
    const picks = new Set(Array.from({ length: 30 }, () => keyOf(chooser.choose(plain, FLEET))));
    expect(picks).toEqual(new Set(FLEET.map((x) => x.key).filter((k) => k !== bound)));
    const moved = chooser.choose(session('s1'), FLEET);
    expect('member' in moved && moved.moved).toEqual({ from: bound });
    // The only member that matches is still taken: health, not one failed connect, is the judge.
    const only = FLEET.find((x) => x.key === bound)!;
    expect(keyOf(chooser.choose(plain, [only]))).toBe(bound);
    now = 30_001;
    const after = new Set(Array.from({ length: 30 }, () => keyOf(chooser.choose(plain, FLEET))));
    expect(after.has(bound)).toBe(true);
  });

  it('forgets a session idle longer than sessionIdleMs, and keeps at most maxSessions (least recently used go first)', () => {
    let now = 0;
    const chooser = new MemberChooser({ now: () => now, sessionIdleMs: 1_000, maxSessions: 3 });
    const first = keyOf(chooser.choose(session('old'), FLEET));
    now = 2_000;
    // Idle too long: chosen afresh (in turn, so not necessarily elsewhere), and not a "move".
    const again = chooser.choose(session('old'), FLEET);
    expect('member' in again && again.moved).toBeFalsy();
    expect(typeof first).toBe('string');
    for (const id of ['a', 'b', 'c', 'd']) chooser.choose(session(id), FLEET);
    expect(chooser.sessionCount).toBe(3);
  });
});
