/**
 * What the proxy views ask of the backend. A launch, start, stop, delete or replace starts
 * a task (the tasks store follows `task:update`, the proxies store `proxy:changed`); a label
 * edit is applied to the row at once from its answer, and `proxy:changed` (LABELLED) follows;
 * a URL or client settings answer a question and change nothing.
 */
import type { ChannelInput, ChannelOutput } from '../../shared/ipc.js';
import type { ProxyRecordView } from '../../shared/proxies.js';
import { recordKey } from '../../shared/proxy-key.js';
import { errorMessage } from '../format.js';
import { useProxiesStore } from './proxies-store.js';
import { storeApi } from './store-api.js';

/** Launches one proxy (a task). */
export const launchProxy = (spec: ChannelInput<'proxies:launch'>) => storeApi().proxies.launch(spec);

/** Launches several proxies in one task, placed by a strategy. */
export const launchProxies = (input: ChannelInput<'proxies:launchMany'>) => storeApi().proxies.launchMany(input);

/** Where a launch would go now, and why (nothing changes): the Launch dialog's "Automatic". */
export const placeFor = (input: ChannelInput<'proxies:place'>): Promise<ChannelOutput<'proxies:place'>> =>
  storeApi().proxies.place(input);

/** A lifecycle action on several proxies. */
export type ProxyAction = 'start' | 'stop' | 'delete';

/**
 * Starts the action on each proxy (a task each); resolves with the refusals, `name: why`,
 * so one refused proxy does not keep the others from going. `force`: the person agreed to
 * act on someone else's proxies.
 */
export async function actOn(action: ProxyAction, names: readonly string[], force = false): Promise<string[]> {
  const api = storeApi();
  const f = force ? { force: true } : {};
  const results = await Promise.allSettled(
    names.map((name) =>
      action === 'delete'
        ? api.proxies.delete({ name, confirm: true, ...f })
        : action === 'stop'
          ? api.proxies.stop({ name, ...f })
          : api.proxies.start({ name }),
    ),
  );
  return results.flatMap((r, i) => (r.status === 'rejected' ? [`${names[i]}: ${errorMessage(r.reason)}`] : []));
}

/** Replaces proxies (one task), on their own host or the one named. */
export const replaceProxies = (input: ChannelInput<'proxies:replace'>) => storeApi().proxies.replace(input);

/**
 * Sets and removes labels of a proxy. The answer is the labels as stored: the row shows
 * them at once, not only when the `proxy:changed` event arrives.
 */
export async function labelProxy(
  proxy: ProxyRecordView,
  set: Record<string, string>,
  remove: readonly string[],
): Promise<void> {
  const answer = await storeApi().proxies.label({
    name: proxy.name,
    ...(Object.keys(set).length ? { set } : {}),
    ...(remove.length ? { remove: [...remove] } : {}),
  });
  const store = useProxiesStore.getState();
  const live = store.proxies[recordKey(proxy)];
  if (live && answer.host === proxy.host)
    store.apply({
      host: proxy.host,
      domain: proxy.id,
      name: proxy.name,
      event: 'LABELLED',
      removed: false,
      proxy: { ...live, labels: answer.labels },
    });
}

/** The ready-to-copy URL, credentials included (a secret): null while the proxy has no address. */
export const proxyUrl = (name: string): Promise<ChannelOutput<'proxies:url'>> => storeApi().proxies.url({ name });

/** A client settings file for a selection (with credentials only when asked). */
export const clientSettings = (
  input: ChannelInput<'proxies:clientSettings'>,
): Promise<ChannelOutput<'proxies:clientSettings'>> => storeApi().proxies.clientSettings(input);
