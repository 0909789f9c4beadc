/**
 * Where a proxy goes: the host asked for, or the connected host with the most free
 * memory whose pool has room for the overlay at its full size. The reason is returned so
 * that the person sees why a host was chosen (or why none was).
 */
import type { ResolvedKVMHost } from '../../../../shared/config.js';
import { PlacementError } from './errors.js';
import type { LibvirtApi } from './libvirt-api.js';
import { messageOf } from '../../../../shared/errors.js';

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
export function gib(bytes: number): string {
  if (bytes < 1024 ** 3) return `${Math.round(bytes / 1024 ** 2)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

interface Candidate {
  host: ResolvedKVMHost;
  api: LibvirtApi;
  free: number;
  available: number;
}

export async function place(input: PlacementInput): Promise<Placement> {
  if (input.host !== undefined) {
    const host = input.hosts.find((h) => h.name === input.host);
    if (!host) throw new PlacementError(`no host named ${JSON.stringify(input.host)} (known: ${input.hosts.map((h) => h.name).join(', ')})`);
    const api = await input.apiFor(host.name);
    const pool = await api.poolInfo(host.pool);
    if (!pool.active) throw new PlacementError(`${host.name}: pool ${host.pool} is not active (start it with virsh pool-start ${host.pool})`);
    return { host, api, reason: `${host.name}: asked for` };
  }
  const rejected: string[] = [];
  const candidates = await Promise.all(
    input.hosts.map(async (host): Promise<Candidate | undefined> => {
      try {
        const api = await input.apiFor(host.name);
        const [free, pool] = await Promise.all([api.freeMemory(), api.poolInfo(host.pool)]);
        if (!pool.active) rejected.push(`${host.name}: pool ${host.pool} is not active`);
        else if (pool.availableBytes < input.diskBytes) rejected.push(`${host.name}: pool ${host.pool} has ${gib(pool.availableBytes)} free, the disk needs ${gib(input.diskBytes)}`);
        else if (input.memoryBytes !== undefined && free < input.memoryBytes) rejected.push(`${host.name}: ${gib(free)} of memory free, the machine type needs ${gib(input.memoryBytes)}`);
        else return { host, api, free, available: pool.availableBytes };
      } catch (err) {
        rejected.push(`${host.name}: not reachable (${messageOf(err)})`);
      }
      return undefined;
    }),
  );
  const usable = candidates.filter((c): c is Candidate => c !== undefined);
  if (!usable.length) throw new PlacementError(`no host can take the proxy: ${rejected.join('; ') || 'the config has no hosts'}`);
  // Most free memory first; ties go to config order (stable sort).
  const best = [...usable].sort((a, b) => b.free - a.free)[0]!;
  return { host: best.host, api: best.api, reason: `${best.host.name}: most free memory (${gib(best.free)}) with room in pool ${best.host.pool}` };
}
