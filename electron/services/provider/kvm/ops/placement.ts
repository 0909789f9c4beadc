/**
 * Where a proxy goes: the host asked for, or the connected host with the most free
 * memory whose pool has room for the overlay at its full size. The reason is returned so
 * that the person sees why a host was chosen (or why none was).
 */
import type { ResolvedKVMHost } from '../../../../../shared/config.js';
import { isNotFound } from '../../../../libvirt/index.js';
import { PlacementError } from '../errors.js';
import type { LibvirtApi } from '../libvirt-api.js';
import { messageOf } from '../../../../../shared/errors.js';
import { gib, noRoom } from '../pool-room.js';

export interface Placement {
  host: ResolvedKVMHost;
  api: LibvirtApi;
  reason: string;
}

export interface PlacementInput {
  hosts: readonly ResolvedKVMHost[];
  apiFor: (host: string) => Promise<LibvirtApi>;
  /** The host asked for, if any. */
  host?: string;
  /** Bytes the overlay may grow to (machine type diskGiB). */
  diskBytes: number;
  /** The machine type's memory: a host with less free memory is not a candidate. */
  memoryBytes?: number;
}

/** `12.3 GiB`, or `256 MiB` below 1 GiB (a tenth of a GiB is too coarse for small machine types). */

/**
 * Why the host's libvirt network cannot take a guest now (not active: `virsh net-destroy`,
 * a host rebooted without autostart), or undefined. A guest on an inactive network would
 * fail at boot after its volumes and domain were made; asking first refuses with the reason
 * before anything exists. A bridge is the host's own interface: libvirt names a missing one
 * when the domain starts, and the launch rolls back.
 */
async function networkProblem(host: ResolvedKVMHost, api: LibvirtApi): Promise<string | undefined> {
  if (!host.network) return undefined;
  let active: boolean;
  try {
    active = await api.networkActive(host.network);
  } catch (err) {
    if (isNotFound(err))
      return `network ${host.network} does not exist there (virsh net-list --all lists the host's networks)`;
    throw err;
  }
  return active
    ? undefined
    : `network ${host.network} is not active (start it with virsh net-start ${host.network}, or choose another host)`;
}

/** A host that can take a proxy now, with its free memory and pool space (bytes). */
export interface Candidate {
  host: ResolvedKVMHost;
  api: LibvirtApi;
  free: number;
  available: number;
}

/** Every host asked at once: those that can take a proxy of this size, and why each other one cannot. */
export async function candidates(
  input: Omit<PlacementInput, 'host'>,
): Promise<{ usable: Candidate[]; rejected: string[] }> {
  const rejected: string[] = [];
  const found = await Promise.all(
    input.hosts.map(async (host): Promise<Candidate | undefined> => {
      try {
        const api = await input.apiFor(host.name);
        const [free, pool, network] = await Promise.all([
          api.freeMemory(),
          api.poolInfo(host.pool),
          networkProblem(host, api),
        ]);
        if (network) rejected.push(`${host.name}: ${network}`);
        else if (!pool.active) rejected.push(`${host.name}: pool ${host.pool} is not active`);
        else if (pool.availableBytes < input.diskBytes)
          rejected.push(`${host.name}: ${noRoom(host.pool, pool.availableBytes, input.diskBytes, 'the disk needs')}`);
        else if (input.memoryBytes !== undefined && free < input.memoryBytes)
          rejected.push(`${host.name}: ${gib(free)} of memory free, the machine type needs ${gib(input.memoryBytes)}`);
        else return { host, api, free, available: pool.availableBytes };
      } catch (err) {
        rejected.push(`${host.name}: not reachable (${messageOf(err)})`);
      }
      return undefined;
    }),
  );
  return { usable: found.filter((c): c is Candidate => c !== undefined), rejected };
}

export async function place(input: PlacementInput): Promise<Placement> {
  if (input.host !== undefined) {
    const host = input.hosts.find((h) => h.name === input.host);
    if (!host)
      throw new PlacementError(
        `no host named ${JSON.stringify(input.host)} (known: ${input.hosts.map((h) => h.name).join(', ')})`,
      );
    const api = await input.apiFor(host.name);
    const pool = await api.poolInfo(host.pool);
    if (!pool.active)
      throw new PlacementError(
        `${host.name}: pool ${host.pool} is not active (start it with virsh pool-start ${host.pool})`,
      );
    // Asked for is not a licence to fill the pool: the overlay may grow to the whole disk, and a
    // guest whose disk fills mid-write pauses. The same rule as automatic placement.
    if (pool.availableBytes < input.diskBytes)
      throw new PlacementError(
        `${host.name}: ${noRoom(host.pool, pool.availableBytes, input.diskBytes, "the proxy's disk may grow to")}`,
      );
    const network = await networkProblem(host, api);
    if (network) throw new PlacementError(`${host.name}: ${network}`);
    return { host, api, reason: `${host.name}: asked for` };
  }
  const { usable, rejected } = await candidates(input);
  if (!usable.length)
    throw new PlacementError(`no host can take the proxy: ${rejected.join('; ') || 'the config has no hosts'}`);
  // Most free memory first; ties go to config order (stable sort).
  const best = [...usable].sort((a, b) => b.free - a.free)[0]!;
  return {
    host: best.host,
    api: best.api,
    reason: `${best.host.name}: most free memory (${gib(best.free)}) with room in pool ${best.host.pool}`,
  };
}
