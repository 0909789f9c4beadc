/**
 * What the Hosts view asks of the backend beyond the hosts store's own calls. A host added,
 * edited or removed is a config write (through the config store's `write`); the hosts store
 * takes the answer's list at once and follows `config:changed` too. A host's image transfer
 * and SSH settings are read and written where they live (settings.json, ~/.ssh/config) and
 * held by the section that shows them.
 */
import type { KVMHost } from '../../shared/config.js';
import type { HostStatus } from '../../shared/hosts.js';
import type { ChannelOutput } from '../../shared/ipc.js';
import type { ImageTransfer } from '../../shared/app-settings.js';
import { useAppConfigStore } from './app-config-store.js';
import { useHostsStore } from './hosts-store.js';
import { storeApi } from './store-api.js';

/**
 * The hosts of a host edit's answer, taken as it arrives: not after the config store's
 * catalog read, by when `host:status` events (a new host's key to trust) may have come, which
 * this older list must not overwrite.
 */
function answered<T extends { hosts: HostStatus[] }>(result: T): T {
  useHostsStore.getState().replace(result.hosts);
  return result;
}

/** Adds a host, or replaces the entry named `editing`; resolves once the hosts and the config show it. */
export async function saveHost(host: KVMHost, editing?: string): Promise<void> {
  await useAppConfigStore
    .getState()
    .write(async (api) =>
      answered(await (editing !== undefined ? api.hosts.update({ name: editing, host }) : api.hosts.add({ host }))),
    );
}

/** Removes a host from the config (nothing on the host is touched); resolves with the backend's message. */
export async function removeHost(name: string): Promise<string | undefined> {
  const result = await useAppConfigStore
    .getState()
    .write(async (api) => answered(await api.hosts.remove({ name, confirm: true })));
  return result.message;
}

/** How base images reach a host, and how the last one got there. */
export const imageTransfer = (name: string): Promise<ChannelOutput<'hosts:imageTransfer'>> =>
  storeApi().hosts.imageTransfer({ name });

/** Sets how base images reach a host (settings.json); resolves with the choice as saved. */
export const setImageTransfer = (
  name: string,
  imageTransfer: ImageTransfer,
): Promise<ChannelOutput<'hosts:setImageTransfer'>> => storeApi().hosts.setImageTransfer({ name, imageTransfer });

/** The SSH settings that apply to a host (read from ~/.ssh/config by ssh -G). */
export const sshSettings = (name: string): Promise<ChannelOutput<'hosts:sshSettings'>> =>
  storeApi().hosts.sshSettings({ name });
