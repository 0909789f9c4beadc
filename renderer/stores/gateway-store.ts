/**
 * The gateway the app runs (issue 40): its status (settings, address, members with their
 * shares, totals and rates), loaded by `gateway:status` and kept fresh by `gateway:update`;
 * and its newest requests, loaded by `gateway:requests` and followed by the event of the same
 * name (the Requests table). Writes go through `gateway:set`, whose answer is the status;
 * a client's URL and settings are fetched on demand (`gateway:url`, `gateway:clientSettings`).
 */
import { create } from 'zustand';
import type { GatewayAccessEntry, GatewaySettings, GatewayStatus } from '../../shared/gateway.js';
import type { ChannelInput, ChannelOutput } from '../../shared/ipc.js';
import { copyText } from '../clipboard.js';
import { errorMessage } from '../format.js';
import { storeApi } from './store-api.js';
import { useUiStore } from './ui-store.js';

/** Requests the table keeps at most, newest last. */
export const REQUESTS_KEPT = 500;

export interface GatewayStore {
  status?: GatewayStatus | undefined;
  requests: GatewayAccessEntry[];
  loaded: boolean;
  error?: string | undefined;
  start(): () => void;
  /** Changes the settings given and makes the gateway so; resolves with the status after it. */
  set(change: Partial<GatewaySettings>): Promise<GatewayStatus>;
  /** Copies a client's URL (the first client's, made when none exists), with a toast either way. */
  copyUrl(socks?: boolean): Promise<boolean>;
  /** A client's settings for the gateway in a format (a question: only a first client may be made). */
  clientSettings(input: ChannelInput<'gateway:clientSettings'>): Promise<ChannelOutput<'gateway:clientSettings'>>;
}

const keep = (list: GatewayAccessEntry[]) => (list.length > REQUESTS_KEPT ? list.slice(-REQUESTS_KEPT) : list);

export const useGatewayStore = create<GatewayStore>((set) => ({
  requests: [],
  loaded: false,
  start() {
    const api = storeApi();
    const offs = [
      api.on('gateway:update', (status) => set({ status, loaded: true })),
      api.on('gateway:requests', (entries) => set((s) => ({ requests: keep([...s.requests, ...entries]) }))),
    ];
    void Promise.all([api.gateway.status(), api.gateway.requests({ limit: REQUESTS_KEPT })]).then(
      ([status, requests]) => set({ status, requests, loaded: true, error: undefined }),
      (err: unknown) => set({ loaded: true, error: errorMessage(err) }),
    );
    return () => offs.forEach((off) => off());
  },
  async set(change) {
    const status = await storeApi().gateway.set(change);
    set({ status });
    return status;
  },
  async copyUrl(socks = false) {
    const { toast } = useUiStore.getState();
    try {
      const { url, client } = await storeApi().gateway.url(socks ? { socks: true } : {});
      if (!url) {
        toast('The gateway has no SOCKS5 listener: give it a port first.', 'error');
        return false;
      }
      return await copyText(url, `the gateway URL of ${client}`, ' (it includes the password)');
    } catch (err) {
      toast(`Could not copy the gateway URL: ${errorMessage(err)}`, 'error');
      return false;
    }
  },
  clientSettings: (input) => storeApi().gateway.clientSettings(input),
}));
