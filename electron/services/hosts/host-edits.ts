/**
 * Adding, changing and removing hosts in the config, as pure changes of a ProviderConfig
 * that ConfigWrites.edit validates (the shared schema and cross-field rules) and saves.
 * Nothing here touches a host: removing one only stops managing it.
 */
import type { KVMHost, ProviderConfig } from '../../../shared/config.js';
import type { FleetListing } from '../provider/kvm/fleet.js';

/** No host of that name in the config. */
export class UnknownHostError extends Error {
  override readonly name = 'UnknownEntryError';
}

/** The change is refused for a reason the config's rules do not cover (see the message). */
export class HostEditRefusedError extends Error {
  override readonly name = 'HostEditRefusedError';
}

function hostsOf(config: ProviderConfig): KVMHost[] {
  if (config.type !== 'kvm' || !config.kvm)
    throw new HostEditRefusedError(
      `the config's provider type is ${config.type}: hosts can be edited only in a kvm config`,
    );
  return config.kvm.hosts;
}

function indexOf(hosts: readonly KVMHost[], name: string): number {
  const i = hosts.findIndex((h) => h.name === name);
  if (i < 0)
    throw new UnknownHostError(
      `no host named ${JSON.stringify(name)} (known: ${hosts.map((h) => h.name).join(', ') || 'none'})`,
    );
  return i;
}

/** Appends `host` (validated by the caller's save, duplicates included). */
export function addHost(config: ProviderConfig, host: KVMHost): ProviderConfig {
  hostsOf(config).push(host);
  return config;
}

/**
 * How many proxies run on `host`, from a listing; undefined when the host could not be
 * listed (then nobody knows).
 */
export function proxiesOn(listing: FleetListing, host: string): number | undefined {
  if (!listing.hosts.some((h) => h.host === host && h.ok)) return undefined;
  return listing.proxies.filter((p) => p.host === host).length;
}

/**
 * Replaces the host `name` with `host`, in place. A rename is allowed only when no proxy
 * runs on the host: each proxy's libvirt metadata records the host's name (what exports,
 * the operator and `proxies` commands show), so renaming under them would leave them
 * pointing at a host the config no longer has. `proxies` is that count, undefined when the
 * host cannot be listed (a rename is then refused too: nobody knows).
 */
export function updateHost(
  config: ProviderConfig,
  name: string,
  host: KVMHost,
  proxies: number | undefined,
): ProviderConfig {
  const hosts = hostsOf(config);
  const i = indexOf(hosts, name);
  if (host.name !== name) {
    if (proxies === undefined) {
      throw new HostEditRefusedError(
        `cannot rename ${name} to ${host.name} while ${name} cannot be reached: whether proxies run on it (their metadata names the host) is unknown. Connect it first, or add ${host.name} as a new host.`,
      );
    }
    if (proxies > 0) {
      throw new HostEditRefusedError(
        `cannot rename ${name} to ${host.name}: ${proxies} ${proxies === 1 ? 'proxy runs' : 'proxies run'} on it, and each records the host name ${name} in its metadata. Delete ${proxies === 1 ? 'it' : 'them'} first, or keep the name.`,
      );
    }
  }
  hosts[i] = host;
  return config;
}

/** Removes the host `name` from the config (the host itself, and what runs on it, are not touched). */
export function removeHost(config: ProviderConfig, name: string): ProviderConfig {
  const hosts = hostsOf(config);
  hosts.splice(indexOf(hosts, name), 1);
  return config;
}

/** What the person is told after a removal. */
export function removalMessage(name: string, proxies: number | undefined): string {
  const lead = `${name} was removed from the config; nothing on the host was touched`;
  if (proxies === 0) return `${lead}: no proxy ran on it.`;
  const unmanaged = 'no longer managed by this app (add the host again to manage them)';
  if (proxies === undefined)
    return `${lead}. Whether proxies run on it is unknown (it could not be reached): any that do keep running, ${unmanaged}.`;
  return `${lead}: its ${proxies} ${proxies === 1 ? 'proxy keeps' : 'proxies keep'} running, ${unmanaged}.`;
}
