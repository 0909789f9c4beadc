/**
 * The console sessions one client opened (a serve-mode WebSocket, the app window's current
 * page), so that they close when that client goes: a browser tab closed or a window
 * reloaded must not keep holding a guest's console (the session limit would fill up and
 * the console would stay "busy" for everyone else). The front end routes its calls through
 * {@link ConsoleOwner.invoke}, which notes the sessions `console:open` hands out and
 * refuses `console:write`/`console:close` for sessions this client did not open, and calls
 * {@link ConsoleOwner.release} when the client disconnects. Serve mode also sends each
 * session's events to its owner only: {@link ConsoleOwnerHooks} tell it when a session
 * becomes this client's and when it stops being so (electron/serve/console-routes.ts).
 */
import { ConsoleOpenSchema } from '../../shared/console.js';
import type { Envelope } from '../../shared/ipc.js';
import type { Router } from './router.js';

const sessionOf = (input: unknown): string | undefined =>
  typeof input === 'object' && input !== null && 'session' in input && typeof input.session === 'string'
    ? input.session
    : undefined;

/** Told as sessions become a client's and stop being so (serve routes their events by these). */
export interface ConsoleOwnerHooks {
  /** A `console:open` of this client answered `session`: it is this client's from now on. */
  claimed?(session: string): void;
  /** `session` is no longer this client's: the client went, before or after its open answered. */
  dropped?(session: string): void;
}

export class ConsoleOwner {
  /** This client's sessions (until it closes them or goes) → whether they ended by themselves. */
  private readonly sessions = new Map<string, { ended: boolean }>();
  /** Bumped by every release: an open that answers after one belongs to a client that is gone. */
  private generation = 0;

  constructor(
    private readonly router: Pick<Router, 'invoke'>,
    private readonly hooks: ConsoleOwnerHooks = {},
  ) {}

  /** True when this client opened `session` (and has not closed it). */
  owns(session: string): boolean {
    return this.sessions.has(session);
  }

  /** Routes one call, remembering the console sessions it opens or closes. */
  async invoke(channel: unknown, input: unknown): Promise<Envelope> {
    const session = sessionOf(input);
    if (
      (channel === 'console:write' || channel === 'console:close') &&
      session !== undefined &&
      !this.sessions.has(session)
    ) {
      return {
        ok: false,
        error: {
          name: 'ConsoleSessionUnknown',
          message:
            'this console session is not open in this window (it ended, or another window or tab opened it): connect again',
        },
      };
    }
    const generation = this.generation;
    const envelope = await this.router.invoke(channel, input);
    if (envelope.ok && channel === 'console:open') {
      const opened = ConsoleOpenSchema.safeParse(envelope.value);
      if (opened.success) {
        const id = opened.data.session;
        // The client went while the console was opening: nobody would ever close it.
        if (generation !== this.generation) {
          this.hooks.dropped?.(id);
          await this.router.invoke('console:close', { session: id });
        } else {
          this.sessions.set(id, { ended: false });
          this.hooks.claimed?.(id);
        }
      }
    } else if (channel === 'console:close' && session !== undefined) {
      this.sessions.delete(session);
    }
    return envelope;
  }

  /**
   * `session` ended (its console:closed went out to this client): no hook hears of it again.
   * It stays this client's, so that a late write or close gets "ended", not "not yours".
   */
  ended(session: string): void {
    const s = this.sessions.get(session);
    if (s) s.ended = true;
  }

  /** Closes every session this client opened (those that ended by themselves answer closed: false). */
  async release(): Promise<void> {
    this.generation++;
    const sessions = [...this.sessions];
    this.sessions.clear();
    for (const [session, { ended }] of sessions) if (!ended) this.hooks.dropped?.(session);
    await Promise.all(sessions.map(([session]) => this.router.invoke('console:close', { session })));
  }
}
