/**
 * The bridge: the only thing the sandboxed renderer gets. It exposes `window.egress` with
 * `invoke(channel, input)` for the channels of the contract and `on(event, listener)` for
 * its events, and nothing else; the renderer's api layer turns envelopes into values and
 * typed errors. Kept thin on purpose.
 */
import { type IpcRendererEvent, contextBridge, ipcRenderer } from 'electron';
import { EVENTS_CHANNEL, type Envelope, INVOKE_CHANNEL, type RawBridge } from '../shared/ipc-transport.js';

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
   * payload only, never Electron's event object (it would hand the renderer `sender`).
   */
  on(event: string, listener: (payload: unknown) => void): () => void {
    const handler = (_e: IpcRendererEvent, name: unknown, payload: unknown) => {
      if (name === event) listener(payload);
    };
    ipcRenderer.on(EVENTS_CHANNEL, handler);
    return () => void ipcRenderer.removeListener(EVENTS_CHANNEL, handler);
  },
} satisfies RawBridge;

contextBridge.exposeInMainWorld('egress', bridge);
