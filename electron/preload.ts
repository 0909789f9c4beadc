/**
 * The bridge: the only thing the sandboxed renderer gets. It exposes `window.egress` with
 * `invoke(channel, input)` for the channels of the contract and nothing else; the
 * renderer's api layer turns envelopes into values and typed errors. Kept thin on purpose.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { type Envelope, INVOKE_CHANNEL } from '../shared/ipc-transport.js';

const bridge = {
  /**
   * Calls a channel of the contract; resolves to its envelope (errors travel as data, so
   * they survive the context bridge intact). The router in main validates channel and input.
   */
  invoke(channel: string, input?: unknown): Promise<Envelope> {
    return ipcRenderer.invoke(INVOKE_CHANNEL, channel, input) as Promise<Envelope>;
  },
};

export type PreloadBridge = typeof bridge;

contextBridge.exposeInMainWorld('egress', bridge);
