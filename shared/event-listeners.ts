/**
 * The listeners of a bridge's events, by event name: what the Electron preload and serve
 * mode's WebSocket bridge both keep behind `window.egress.on`. One set per event, so the
 * same function subscribed twice is called once and one unsubscribe ends it.
 */

/** A listener of one event: the payload only. */
export type EventListener = (payload: unknown) => void;

export class EventListeners {
  private readonly byEvent = new Map<string, Set<EventListener>>();

  /** Adds `listener` to `event`; returns the unsubscribe. */
  on(event: string, listener: EventListener): () => void {
    let set = this.byEvent.get(event);
    if (!set) this.byEvent.set(event, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byEvent.get(event) === set) this.byEvent.delete(event);
    };
  }

  /**
   * Calls every listener of `event` with `payload`, even if one throws: one view's bug must
   * not starve the others of updates. The error is not swallowed: it is thrown again once all
   * have run (the first one; several as an AggregateError), so it still shows in the console
   * as an uncaught error. A listener that subscribes or unsubscribes meanwhile changes the
   * next event, not this one.
   */
  dispatch(event: string, payload: unknown): void {
    const set = this.byEvent.get(event);
    if (!set) return;
    const errors: unknown[] = [];
    for (const listener of [...set]) {
      try {
        listener(payload);
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} listeners of ${event} threw`);
  }
}
