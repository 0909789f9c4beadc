/**
 * A host's load as the Hosts view refreshes it while it shows: the host's own CPU from
 * libvirt's node CPU counters (NODE_GET_CPU_STATS, every process on the host, not only our
 * proxies' domains), memory (free, and what the kernel can give back when the host reports
 * it) and each pool's space. CPU is a share of time between two readings, so the reader
 * keeps each host's last counters; a host's first reading takes a second one shortly after,
 * so that the first answer already has a figure.
 */
import type { HostLoad } from '../../../shared/hosts.js';
import { type Caller, LibvirtError, StoragePoolState, listAllStoragePools } from '../../libvirt/index.js';
import type { NodeStat } from '../../libvirt/types.js';

/** All CPUs together (VIR_NODE_CPU_STATS_ALL_CPUS), the whole host (VIR_NODE_MEMORY_STATS_ALL_CELLS). */
const ALL = -1;

/** Cumulative CPU time of the host, ns. */
export interface NodeCpuTimes {
  busyNs: bigint;
  totalNs: bigint;
}

/**
 * Busy and total time from the node's counters. Linux reports `kernel`, `user`, `idle`,
 * `iowait` (ns); iowait is idle time waiting for a disk, so it counts as not busy. Undefined
 * when the counters are not there (another driver's names).
 */
export function cpuTimesOf(stats: readonly NodeStat[]): NodeCpuTimes | undefined {
  const by = new Map(stats.map((s) => [s.field, s.value]));
  const kernel = by.get('kernel');
  const user = by.get('user');
  const idle = by.get('idle');
  if (kernel === undefined || user === undefined || idle === undefined) return undefined;
  const busyNs = kernel + user;
  return { busyNs, totalNs: busyNs + idle + (by.get('iowait') ?? 0n) };
}

/**
 * The busy share of all cores between two readings (0–1); undefined when the counters went
 * back (the host restarted, or the entry now reaches another hypervisor) or nothing elapsed.
 */
export function busyShare(before: NodeCpuTimes, after: NodeCpuTimes): number | undefined {
  const total = after.totalNs - before.totalNs;
  const busy = after.busyNs - before.busyNs;
  if (total <= 0n || busy < 0n) return undefined;
  return Math.min(1, Number(busy) / Number(total));
}

/** Reads the node's CPU counters (the count first: libvirt wants exactly as many as it has). Undefined where the host has none. */
export async function readNodeCpu(client: Caller): Promise<NodeCpuTimes | undefined> {
  try {
    const { nparams } = await client.call('NODE_GET_CPU_STATS', { cpuNum: ALL, nparams: 0, flags: 0 });
    if (nparams <= 0) return undefined;
    const { params } = await client.call('NODE_GET_CPU_STATS', { cpuNum: ALL, nparams, flags: 0 });
    return cpuTimesOf(params);
  } catch (err) {
    // A driver without node CPU statistics: the view says it has no figure, the rest still shows.
    if (err instanceof LibvirtError) return undefined;
    throw err;
  }
}

/** The host's memory from its node memory statistics, bytes. */
export interface NodeMemory {
  totalBytes: number;
  freeBytes: number;
  /** Free plus buffers and page cache: what the kernel can give a new guest. */
  availableBytes: number;
}

/**
 * NODE_GET_MEMORY_STATS (KiB, the whole host); undefined where the driver has none. Its
 * figures are one set read together: NODE_GET_INFO's total can be another figure (on the
 * test machine 11.0 GiB against /proc/meminfo's 23.5 GiB), so they are never mixed.
 */
export async function readNodeMemory(client: Caller): Promise<NodeMemory | undefined> {
  try {
    const { nparams } = await client.call('NODE_GET_MEMORY_STATS', { nparams: 0, cellNum: ALL, flags: 0 });
    if (nparams <= 0) return undefined;
    const { params } = await client.call('NODE_GET_MEMORY_STATS', { nparams, cellNum: ALL, flags: 0 });
    const by = new Map(params.map((s) => [s.field, s.value]));
    const total = by.get('total');
    const free = by.get('free');
    if (total === undefined || free === undefined) return undefined;
    const kib = (v: bigint) => Number(v) * 1024;
    return {
      totalBytes: kib(total),
      freeBytes: kib(free),
      availableBytes: kib(free + (by.get('buffers') ?? 0n) + (by.get('cached') ?? 0n)),
    };
  } catch (err) {
    if (err instanceof LibvirtError) return undefined;
    throw err;
  }
}

export interface HostLoadReaderOptions {
  now?: () => number;
  /** Waits `ms` (the first reading's second sample). */
  sleep?: (ms: number) => Promise<void>;
  /** How long a host's first reading measures its CPU (default 500 ms). */
  firstWindowMs?: number;
  /** Readings closer together than this reuse the last figure instead of measuring noise (default 1 s). */
  minWindowMs?: number;
}

interface Last {
  times: NodeCpuTimes;
  at: number;
  busy?: number | undefined;
  windowMs?: number | undefined;
}

/** Reads hosts' load, keeping each host's last CPU counters for the next share. */
export class HostLoadReader {
  private readonly last = new Map<string, Last>();
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly firstWindowMs: number;
  private readonly minWindowMs: number;

  constructor(options: HostLoadReaderOptions = {}) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.firstWindowMs = options.firstWindowMs ?? 500;
    this.minWindowMs = options.minWindowMs ?? 1_000;
  }

  async read(name: string, client: Caller): Promise<HostLoad> {
    const [node, memory, pools, cpu] = await Promise.all([
      client.call('NODE_GET_INFO'),
      readNodeMemory(client),
      readPools(client),
      this.cpu(name, client),
    ]);
    // Without node memory statistics (the test driver): NODE_GET_INFO's total and the free memory, as the facts at connect give them.
    const free = memory ? undefined : Number(await client.call('NODE_GET_FREE_MEMORY'));
    return {
      name,
      at: this.now(),
      ...(cpu.busy !== undefined ? { cpuBusy: cpu.busy, cpuWindowMs: cpu.windowMs } : {}),
      cpus: node.cpus,
      memoryBytes: memory?.totalBytes ?? Number(node.memory) * 1024,
      freeMemoryBytes: memory?.freeBytes ?? free!,
      availableMemoryBytes: memory?.availableBytes ?? free!,
      pools,
    };
  }

  /** The host's CPU share since its last reading (a first reading measures a short window of its own). */
  private async cpu(
    name: string,
    client: Caller,
  ): Promise<{ busy?: number | undefined; windowMs?: number | undefined }> {
    let before = this.last.get(name);
    if (!before) {
      const times = await readNodeCpu(client);
      if (!times) return {};
      before = { times, at: this.now() };
      await this.sleep(this.firstWindowMs);
    } else if (this.now() - before.at < this.minWindowMs && before.busy !== undefined) {
      return { busy: before.busy, windowMs: before.windowMs };
    }
    const times = await readNodeCpu(client);
    if (!times) {
      this.last.delete(name);
      return {};
    }
    const at = this.now();
    const busy = busyShare(before.times, times);
    const windowMs = at - before.at;
    this.last.set(name, { times, at, busy, windowMs });
    return busy === undefined ? {} : { busy, windowMs };
  }

  /** Forgets a host's counters (its entry was removed or now reaches another hypervisor). */
  forget(name: string): void {
    this.last.delete(name);
  }
}

/** Every pool's state and space (one list call, then every pool's info in flight together). */
export async function readPools(client: Caller): Promise<HostLoad['pools']> {
  const pools = await listAllStoragePools(client);
  const infos = await Promise.all(pools.map((pool) => client.call('STORAGE_POOL_GET_INFO', { pool })));
  return pools.map((p, i) => ({
    name: p.name,
    active: infos[i]!.state === StoragePoolState.RUNNING,
    capacityBytes: Number(infos[i]!.capacity),
    availableBytes: Number(infos[i]!.available),
  }));
}
