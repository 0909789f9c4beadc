/**
 * The console sessions one client opened (a serve-mode WebSocket, the app window's current
 * page), so that they close when that client goes: a browser tab closed or a window
 * reloaded must not keep holding a guest's console (the session limit would fill up and
 * the console would stay "busy" for everyone else). The front end routes its calls through
 * {@link ConsoleOwner.invoke}, which notes the sessions `console:open` hands out, and calls
 * {@link ConsoleOwner.release} when the client disconnects.
 */
import { ConsoleOpenSchema } from '../../shared/console.js';
import type { Envelope } from '../../shared/ipc.js';
import type { Router } from './router.js';

export class ConsoleOwner {
  private readonly sessions = new Set<string>();

  constructor(private readonly router: Pick<Router, 'invoke'>) {}

  /** Routes one call, remembering the console sessions it opens or closes. */
  async invoke(channel: unknown, input: unknown): Promise<Envelope> {
    const envelope = await this.router.invoke(channel, input);
    if (envelope.ok && channel === 'console:open') {
      const opened = ConsoleOpenSchema.safeParse(envelope.value);
      if (opened.success) this.sessions.add(opened.data.session);
    } else if (channel === 'console:close' && typeof input === 'object' && input !== null && 'session' in input && typeof input.session === 'string') {
      this.sessions.delete(input.session);
    }
    return envelope;
  }

  /** Closes every session this client opened (those that ended by themselves answer closed: false). */
  async release(): Promise<void> {
    const sessions = [...this.sessions];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => this.router.invoke('console:close', { session })));
  }
}
