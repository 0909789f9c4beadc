/**
 * Where serve sends a console session's events (`console:data`, `console:closed`): to the
 * tab that opened it, and never to another. A guest's console carries whatever the guest
 * prints (a login prompt, a typed password echoed back), so an event that has no tab yet
 * is held, not broadcast:
 *
 * - a session's output can leave the backend before its `console:open` answer has come
 *   back through the tab's {@link ConsoleOwner} (the stream is open before the answer is
 *   sent): it is held, and handed to that tab when the answer claims the session;
 * - once the tab that had a session goes (or goes before its open answered), the
 *   session's last events (the output flushed as it closes, its end) go nowhere.
 *
 * Pure bookkeeping over session ids; the endpoint does the sending.
 */
import { CONSOLE_DATA_MAX, CONSOLE_SESSIONS_MAX } from '../../shared/console.js';

/** Events of a session nobody has claimed yet, in order. */
interface Held {
  texts: string[];
  chars: number;
  /** Its `console:closed` came too. */
  ended: boolean;
}

export interface ConsoleRoutesLimits {
  /** Most unclaimed sessions held at once; past it the oldest is forgotten (default: twice the session limit). */
  sessions?: number;
  /** Most characters of output held for one unclaimed session; past it, later output is not kept (default 16 × one event's most). */
  chars?: number;
}

export class ConsoleRoutes<Client> {
  private readonly owners = new Map<string, Client>();
  private readonly held = new Map<string, Held>();
  /** Sessions whose tab went while they were still open: their remaining events are dropped until their end. */
  private readonly orphans = new Set<string>();
  private readonly maxSessions: number;
  private readonly maxChars: number;

  constructor(limits: ConsoleRoutesLimits = {}) {
    this.maxSessions = limits.sessions ?? 2 * CONSOLE_SESSIONS_MAX;
    this.maxChars = limits.chars ?? 16 * CONSOLE_DATA_MAX;
  }

  /**
   * One event of `session` (`text` as it goes on the wire; `end` for its `console:closed`):
   * the client to send it to, or undefined when it is held for a claim or dropped.
   */
  route(session: string, text: string, end: boolean): Client | undefined {
    const owner = this.owners.get(session);
    if (owner !== undefined) {
      if (end) this.owners.delete(session);
      return owner;
    }
    if (this.orphans.has(session)) {
      if (end) this.orphans.delete(session);
      return undefined;
    }
    this.hold(session, text, end);
    return undefined;
  }

  /**
   * `client`'s `console:open` answered with `session`: its events go to `client` from now on.
   * Returns the events that came before (to send first, in order) and whether the session
   * has ended already.
   */
  claim(session: string, client: Client): { texts: string[]; ended: boolean } {
    if (this.orphans.has(session)) return { texts: [], ended: false }; // dropped first: its tab is gone
    const held = this.held.get(session);
    this.held.delete(session);
    if (!held?.ended) this.owners.set(session, client);
    return { texts: held?.texts ?? [], ended: held?.ended ?? false };
  }

  /** `session`'s tab went (or went before its open answered): its events go nowhere from now on. */
  drop(session: string): void {
    const held = this.held.get(session);
    this.held.delete(session);
    this.owners.delete(session);
    // Its end is still to come, unless it came already (held here).
    if (!held?.ended) this.orphans.add(session);
  }

  private hold(session: string, text: string, end: boolean): void {
    let held = this.held.get(session);
    if (!held) {
      // A session nobody claims (its open's answer was lost) must not keep memory forever.
      if (this.held.size >= this.maxSessions) this.held.delete(this.held.keys().next().value!);
      held = { texts: [], chars: 0, ended: false };
      this.held.set(session, held);
    }
    // The wait for a claim is a moment: output beyond this bound is a guest flooding it, not worth memory.
    if (!end && held.chars + text.length > this.maxChars) return;
    held.texts.push(text);
    held.chars += text.length;
    if (end) held.ended = true;
  }
}
