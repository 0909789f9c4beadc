/**
 * The bridge: the only thing the sandboxed renderer gets. It exposes `window.egress` with
 * `invoke(channel, input)` for the channels of the contract and `on(event, listener)` for
 * its events, and nothing else; the renderer's api layer turns envelopes into values and
 * typed errors. Kept thin on purpose.
 */
import { type IpcRendererEvent, contextBridge, ipcRenderer } from 'electron';
import { type EventListener, EventListeners } from '../shared/event-listeners.js';
import { EVENTS_CHANNEL, type Envelope, INVOKE_CHANNEL, type RawBridge } from '../shared/ipc-transport.js';

/** The renderer's listeners, by event name. */
const listeners = new EventListeners();

/**
 * One `ipcRenderer` listener for every event, installed once at load: the renderer
 * subscribes to a dozen events, and a listener each on the one channel would pass
 * Node's MaxListeners (10) and warn. It hands on the payload only, never Electron's
 * event object (it would give the renderer `sender`); see {@link EventListeners.dispatch}
 * for a listener that throws.
 */
function dispatch(_e: IpcRendererEvent, name: unknown, payload: unknown): void {
  if (typeof name === 'string') listeners.dispatch(name, payload);
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
   * delivers once, and one unsubscribe ends it (shared/event-listeners.ts, as the serve bridge).
   */
  on(event: string, listener: EventListener): () => void {
    return listeners.on(event, listener);
  },
} satisfies RawBridge;

contextBridge.exposeInMainWorld('egress', bridge);
