/**
 * Which member of the fleet a gateway request leaves from (issue 40), as state the gateway
 * can lose: everything here is rebuilt from the fleet and its health, and a lost session
 * table only means a sticky client moves once.
 *
 * - **Usable** members only: the caller says which are (running, and healthy or slow in
 *   the health monitor's last round; failing, stopped and unknown ones are never chosen).
 * - **Selection** by the user name's labels (all must match) and host.
 * - **Plain requests: least connections, ties to the least recently chosen.** A gateway's
 *   requests are of two kinds, short plain-HTTP ones and long `CONNECT` tunnels that may last
 *   for hours; round robin alone would pile tunnels onto one member as often as onto another
 *   regardless of what each already carries, while least connections spreads what is open
 *   now. Among the members with the fewest, the one chosen longest ago is taken, so that
 *   sequential short requests are spread evenly as round robin would, also when a request
 *   comes before the previous one's member has closed (a guest answering slowly): a turn
 *   counter over whichever members are tied would then skip one, and the spread drift (a
 *   real run gave 90/99/111 of 300).
 * - **Sessions** (`NAME-session-ID`): the member first chosen for the ID is kept while it is
 *   usable and matches; when it is not, another is chosen and the session moves to it for
 *   good (the caller logs the move). A session is per client, ID and selection, forgotten
 *   after `sessionIdleMs` without a request, and at most `maxSessions` are kept (the least
 *   recently used goes first).
 * - **Failover** within one request: `exclude` holds the members that already refused or
 *   timed out on connect for it; a session bound to one of them moves.
 * - **Sidelined** members: one that could not be reached for a request ({@link
 *   MemberChooser.unreachable}) is passed over by the next requests for `sidelineMs`
 *   (default 30 s) while others match, so that a proxy that died between two health rounds
 *   costs one request a connect timeout, not every n-th request until the next round sees it.
 *   Health remains the judge: after the pause the member is tried again, and a member that
 *   the health rounds call usable is still taken when nothing else matches.
 */
import type { GatewayUser } from '../../../shared/gateway-user.js';

/** A member as the chooser sees it. */
export interface GatewayMember {
  /** The proxy's key (host/domain): stable while it lives. */
  key: string;
  name: string;
  host: string;
  labels: Readonly<Record<string, string>>;
  /** Running, and healthy or slow in the last health round. */
  usable: boolean;
}

export interface MemberChoiceOptions {
  now?: () => number;
  /** A session unused this long is forgotten (default 30 min). */
  sessionIdleMs?: number;
  /** Sessions kept at most (default 10,000). */
  maxSessions?: number;
  /** How long a member that could not be reached is passed over (default 30 s). */
  sidelineMs?: number;
}

export type MemberChoice =
  | {
      member: GatewayMember;
      /** Set when the request's session was bound to another member, which is not usable now. */
      moved?: { from: string };
    }
  | { refusal: string };

interface Session {
  member: string;
  usedAt: number;
}

export class MemberChooser {
  private readonly open = new Map<string, number>();
  /** Least recently used first (a use moves a session to the end). */
  private readonly sessions = new Map<string, Session>();
  /** Members that could not be reached lately, and until when they are passed over. */
  private readonly sidelined = new Map<string, number>();
  /** When each member was last chosen (a sequence number): ties go to the oldest. */
  private readonly lastChosen = new Map<string, number>();
  private sequence = 0;
  private readonly now: () => number;
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private readonly sidelineMs: number;

  constructor(options: MemberChoiceOptions = {}) {
    this.now = options.now ?? Date.now;
    this.idleMs = options.sessionIdleMs ?? 30 * 60_000;
    this.maxSessions = options.maxSessions ?? 10_000;
    this.sidelineMs = options.sidelineMs ?? 30_000;
  }

  /** The member for one request (or one more try of it, with the members that failed it in `exclude`). */
  choose(user: GatewayUser, members: readonly GatewayMember[], exclude: ReadonlySet<string> = new Set()): MemberChoice {
    const matching = members.filter((m) => matches(m, user));
    const usable = matching.filter((m) => m.usable && !exclude.has(m.key));
    if (!usable.length) return { refusal: noMemberReason(user, members, matching, exclude) };
    const now = this.now();
    const unsidelined = usable.filter((m) => !this.isSidelined(m.key, now));
    const candidates = unsidelined.length ? unsidelined : usable;
    if (user.session === undefined) return { member: this.leastBusy(candidates) };

    const id = sessionKey(user);
    const bound = this.sessions.get(id);
    this.sessions.delete(id);
    const live = bound && now - bound.usedAt <= this.idleMs ? bound : undefined;
    const kept = live && candidates.find((m) => m.key === live.member);
    const member = kept ?? this.leastBusy(candidates);
    this.sessions.set(id, { member: member.key, usedAt: now });
    this.trim(now);
    return live && !kept ? { member, moved: { from: live.member } } : { member };
  }

  /** A connection through `key` opened (least connections counts it until {@link closed}). */
  opened(key: string): void {
    this.open.set(key, (this.open.get(key) ?? 0) + 1);
  }

  closed(key: string): void {
    const n = (this.open.get(key) ?? 0) - 1;
    if (n > 0) this.open.set(key, n);
    else this.open.delete(key);
  }

  /** `key` could not be reached (connect refused or timed out): passed over for a while. */
  unreachable(key: string): void {
    this.sidelined.set(key, this.now() + this.sidelineMs);
  }

  private isSidelined(key: string, now: number): boolean {
    const until = this.sidelined.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.sidelined.delete(key);
    return false;
  }

  /** Connections open through `key` now. */
  openCount(key: string): number {
    return this.open.get(key) ?? 0;
  }

  /** Sessions remembered now (idle ones are dropped as requests come). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  private leastBusy(candidates: readonly GatewayMember[]): GatewayMember {
    let best: GatewayMember | undefined;
    let bestOpen = Infinity;
    let bestAt = Infinity;
    for (const m of candidates) {
      const open = this.openCount(m.key);
      const at = this.lastChosen.get(m.key) ?? -1;
      // Fewest open first; then chosen longest ago (never: first); then the key, so the order is stable.
      if (open < bestOpen || (open === bestOpen && (at < bestAt || (at === bestAt && m.key < best!.key)))) {
        best = m;
        bestOpen = open;
        bestAt = at;
      }
    }
    const member = best!;
    this.lastChosen.set(member.key, ++this.sequence);
    // Forget members long gone: the map stays about the size of the fleet.
    if (this.lastChosen.size > 2 * candidates.length + 100) {
      const live = new Set(candidates.map((m) => m.key));
      for (const k of this.lastChosen.keys()) if (!live.has(k)) this.lastChosen.delete(k);
    }
    return member;
  }

  /** Drops idle sessions from the front (least recently used) and any beyond the bound. */
  private trim(now: number): void {
    for (const [id, s] of this.sessions) {
      if (this.sessions.size <= this.maxSessions && now - s.usedAt <= this.idleMs) break;
      this.sessions.delete(id);
    }
  }
}

function matches(m: GatewayMember, user: GatewayUser): boolean {
  if (user.host !== undefined && m.host !== user.host) return false;
  return Object.entries(user.labels).every(([k, v]) => m.labels[k] === v);
}

/** A session is the client's ID under its selection: the same ID with other labels is another session. */
function sessionKey(user: GatewayUser): string {
  const labels = Object.keys(user.labels)
    .sort()
    .map((k) => `${k}=${user.labels[k]}`)
    .join(',');
  return `${user.client}\u0000${user.session ?? ''}\u0000${user.host ?? ''}\u0000${labels}`;
}

/** Why no member can take the request, in words for a 502 or a log line. */
function noMemberReason(
  user: GatewayUser,
  members: readonly GatewayMember[],
  matching: readonly GatewayMember[],
  exclude: ReadonlySet<string>,
): string {
  const selection = [
    ...(user.host !== undefined ? [`on host ${user.host}`] : []),
    ...Object.entries(user.labels).map(([k, v]) => `labelled ${k}=${v}`),
  ].join(' and ');
  if (!members.length) return 'the fleet has no proxy the gateway can use';
  if (!matching.length) return `no proxy is ${selection}`;
  const tried = matching.filter((m) => exclude.has(m.key)).length;
  const what = selection ? `proxy ${selection}` : 'proxy';
  return tried
    ? `no other healthy ${what}: ${tried} refused or timed out on connect`
    : `no ${what} is healthy now (${matching.length} known, none healthy or slow)`;
}
