/**
 * The bridge: the only thing the sandboxed renderer gets. It exposes `window.egress` with
 * `invoke(channel, input)` for the channels of the contract and `on(event, listener)` for
 * its events, and nothing else; the renderer's api layer turns envelopes into values and
 * typed errors. Kept thin on purpose.
 */
import { type IpcRendererEvent, contextBridge, ipcRenderer } from 'electron';
import { EVENTS_CHANNEL, type Envelope, INVOKE_CHANNEL, type RawBridge } from '../shared/ipc-transport.js';

type Listener = (payload: unknown) => void;

/** The renderer's listeners, by event name. */
const listeners = new Map<string, Set<Listener>>();

/**
 * One `ipcRenderer` listener for every event, installed once at load: the renderer
 * subscribes to a dozen events, and a listener each on the one channel would pass
 * Node's MaxListeners (10) and warn. It hands on the payload only, never Electron's
 * event object (it would give the renderer `sender`).
 *
 * Every listener of the event is called even if one throws: one view's bug must not
 * starve the others of updates. The error is not swallowed: it is thrown again once all
 * have run (the first one; several as an AggregateError), so it still shows in the
 * console as an uncaught error, as it did when each listener had its own IPC listener.
 */
function dispatch(_e: IpcRendererEvent, name: unknown, payload: unknown): void {
  if (typeof name !== 'string') return;
  const set = listeners.get(name);
  if (!set) return;
  const errors: unknown[] = [];
  // A copy: a listener that subscribes or unsubscribes while this runs changes the next event, not this one.
  for (const listener of [...set]) {
    try {
      listener(payload);
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} listeners of ${name} threw`);
}

ipcRenderer.on(EVENTS_CHANNEL, dispatch);

const bridge = {
  /**
   * Calls a channel of the contract; resolves to its envelope (errors travel as data, so
   * they survive the context bridge intact). The router in main validates channel and input.
   */
  invoke(channel: string, input?: unknown): Promise<Envelope> {
    return ipcRenderer.invoke(INVOKE_CHANNEL, channel, input) as Promise<Envelope>;
  },
  /**
   * Listens to one event of the contract; returns the unsubscribe. The listener gets the
   * payload only (see {@link dispatch}). Subscribing the same function twice to one event
   * delivers once, and one unsubscribe ends it (a set, like the serve bridge's).
   */
  on(event: string, listener: Listener): () => void {
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && listeners.get(event) === set) listeners.delete(event);
    };
  },
} satisfies RawBridge;

contextBridge.exposeInMainWorld('egress', bridge);
