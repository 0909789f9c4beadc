/**
 * Host entries grouped by the hypervisor they reach. A config may name one machine twice
 * (two pools: `{name: one, address: local, pool: default}` and `{name: two, address:
 * local, pool: fast}`; or `local` beside the same machine over SSH): every domain is then
 * visible through both entries. The rule that keeps such a config safe (docs/provider.md):
 *
 * - a hypervisor's domains are listed once, through its first reachable entry (config order);
 * - a proxy belongs to the entry its metadata names, when that entry is on the same
 *   hypervisor; otherwise (renamed, removed) to the first entry there, marked `unknownHost`;
 * - nothing is done to a proxy through the pool of an entry it does not belong to: its
 *   volumes are where its own domain XML says (domain-facts.ts).
 *
 * A hypervisor is known by libvirt's host UUID; where that cannot be read, a local entry
 * by its socket path, and any other entry counts as a hypervisor of its own.
 */
import type { ResolvedKVMHost } from '../../../../shared/config.js';
import type { ProviderContext } from './context.js';

import type { LibvirtApi } from './libvirt-api.js';
import { messageOf } from '../../../../shared/errors.js';

/** One hypervisor and the reachable entries that lead to it, in config order. */
export interface Hypervisor {
  /** The first entry: the one its domains are listed through. */
  leader: ResolvedKVMHost;
  api: LibvirtApi;
  members: ResolvedKVMHost[];
}

export interface HypervisorGroups {
  hypervisors: Hypervisor[];
  /** Entries that could not be asked, with why. */
  unreachable: Array<{ host: ResolvedKVMHost; error: string }>;
}

async function identityOf(host: ResolvedKVMHost, api: LibvirtApi): Promise<string> {
  try {
    return `uuid:${await api.hostUuid()}`;
  } catch {
    return host.address === 'local' ? `socket:${host.socketPath}` : `entry:${host.name}`;
  }
}

/** Connects to every entry (in parallel) and groups the reachable ones by hypervisor; remembers each identity in `ctx`. */
export async function groupHypervisors(
  ctx: ProviderContext,
  hosts: readonly ResolvedKVMHost[] = ctx.config.hosts,
): Promise<HypervisorGroups> {
  const answers = await Promise.all(
    hosts.map(async (host) => {
      try {
        const api = await ctx.apiFor(host.name);
        const identity = await identityOf(host, api);
        ctx.identities.set(host.name, identity);
        return { host, api, identity };
      } catch (err) {
        return { host, error: messageOf(err) };
      }
    }),
  );
  const byIdentity = new Map<string, Hypervisor>();
  const unreachable: HypervisorGroups['unreachable'] = [];
  for (const a of answers) {
    if (!('api' in a) || a.api === undefined) {
      unreachable.push({ host: a.host, error: a.error ?? 'unreachable' });
      continue;
    }
    const group = byIdentity.get(a.identity);
    if (group) group.members.push(a.host);
    else byIdentity.set(a.identity, { leader: a.host, api: a.api, members: [a.host] });
  }
  return { hypervisors: [...byIdentity.values()], unreachable };
}

/**
 * The entry a proxy whose metadata names `metadataHost` belongs to, among the entries of
 * one hypervisor (config order): that entry when it is one of them, else the first.
 * `unknownHost` is set in the second case.
 */
export function owningEntry(
  metadataHost: string,
  members: readonly ResolvedKVMHost[],
): { host: ResolvedKVMHost; unknownHost?: string } {
  const named = members.find((m) => m.name === metadataHost);
  return named ? { host: named } : { host: members[0]!, unknownHost: metadataHost };
}

/**
 * For an event seen through entry `entry` about a proxy whose metadata names `metadataHost`:
 * the entry to report it under, or undefined when another entry on the same hypervisor
 * reports it (each entry's subscription sees every domain of the hypervisor). Uses the
 * identities learnt by the last {@link groupHypervisors}; an entry not yet identified
 * counts as a hypervisor of its own.
 */
export function reportingEntry(
  ctx: ProviderContext,
  entry: string,
  metadataHost: string,
): { host: string; unknownHost?: string } | undefined {
  const identity = ctx.identities.get(entry);
  const members =
    identity === undefined
      ? ctx.config.hosts.filter((h) => h.name === entry)
      : ctx.config.hosts.filter((h) => ctx.identities.get(h.name) === identity);
  if (!members.length) return undefined;
  const { host, unknownHost } = owningEntry(metadataHost, members);
  if (host.name !== entry) return undefined;
  return unknownHost === undefined ? { host: host.name } : { host: host.name, unknownHost };
}
