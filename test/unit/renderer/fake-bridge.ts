/**
 * The renderer's stores over a bridge of the test's making: `createApi` (renderer/api.ts,
 * the real one) over a RawBridge whose channels are the test's handlers, answering in
 * envelopes as the backend does (a thrown error becomes `{name, message}`), and whose
 * events the test emits. Plus the records the stores hold. Each new bridge is the one the
 * stores call (renderer/stores/store-api.ts): the stores and their actions take no api.
 */
import { metadataOf } from '../../../bench/browser/fake-listing.js';
import { createApi } from '../../../renderer/api.js';
import { bindStoreApi } from '../../../renderer/stores/store-api.js';
import type { HostStatus } from '../../../shared/hosts.js';
import type { Envelope, RawBridge } from '../../../shared/ipc-transport.js';
import type {
  ChannelInput,
  ChannelName,
  ChannelOutput,
  EgressApi,
  EventName,
  EventPayload,
} from '../../../shared/ipc.js';
import type { ProxyInspectionView, ProxyRecordView } from '../../../shared/proxies.js';
import type { Task } from '../../../shared/tasks.js';

export type Handlers = {
  [C in ChannelName]?: (input: ChannelInput<C>) => ChannelOutput<C> | Promise<ChannelOutput<C>>;
};

export interface FakeBridge {
  api: EgressApi;
  /** Every call, in order. */
  calls: { channel: string; input: unknown }[];
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** How many listeners an event has now. */
  listeners(event: EventName): number;
  /** Answers a channel with another handler from now on. */
  handle<C extends ChannelName>(channel: C, handler: NonNullable<Handlers[C]>): void;
}

export function fakeBridge(handlers: Handlers): FakeBridge {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const calls: FakeBridge['calls'] = [];
  const raw: RawBridge = {
    async invoke(channel, input): Promise<Envelope> {
      calls.push({ channel, input });
      const handler = handlers[channel as ChannelName] as ((input: unknown) => unknown) | undefined;
      if (!handler) return { ok: false, error: { name: 'Error', message: `the test has no handler for ${channel}` } };
      try {
        return { ok: true, value: await handler(input) };
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        return { ok: false, error: { name: e.name, message: e.message } };
      }
    },
    on(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
  };
  const api = createApi(raw);
  bindStoreApi(api);
  return {
    api,
    calls,
    emit: (event, payload) => listeners.get(event)?.forEach((l) => l(payload)),
    listeners: (event) => listeners.get(event)?.size ?? 0,
    handle: (channel, handler) => void ((handlers as Record<string, unknown>)[channel] = handler),
  };
}

/** An error the backend would throw, by name (what crosses the bridge). */
export function named(name: string, message: string): Error {
  return Object.assign(new Error(message), { name });
}

/** A promise the test settles. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (err: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const proxyRecord = (over: Partial<ProxyRecordView> = {}): ProxyRecordView => ({
  name: 'web-1',
  id: `ep-${over.name ?? 'web-1'}-abcdef`,
  host: 'edge-a',
  state: 'running',
  port: 3128,
  machineType: 'small',
  image: { name: 'debian-12', sha256: 'ab'.repeat(32) },
  createdAt: '2026-12-02T10:00:00.000Z',
  owner: 'egress-desk',
  specHash: `sha256:${'cd'.repeat(32)}`,
  addresses: [],
  ...over,
});

export const inspectionOf = (proxy: ProxyRecordView, over: Partial<ProxyInspectionView> = {}): ProxyInspectionView => ({
  proxy,
  metadata: metadataOf(proxy),
  domainXml: '<domain/>',
  addresses: [],
  problems: {},
  hasCredentials: true,
  ...over,
});

export const hostStatus = (over: Partial<HostStatus> = {}): HostStatus => ({
  name: 'edge-a',
  address: 'local',
  via: 'unix:/srv/test/libvirt-sock',
  state: 'connected',
  ...over,
});

export const task = (over: Partial<Task> = {}): Task => ({
  id: 't1',
  kind: 'proxies:launch',
  title: 'Launch web-1',
  state: 'running',
  steps: [],
  cancellable: true,
  created: '2026-12-02T10:00:00.000Z',
  ...over,
});
