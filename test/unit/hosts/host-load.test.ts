/**
 * The Hosts view's refreshing figures (electron/services/hosts/host-load.ts): the host's
 * CPU share from two readings of libvirt's node counters (across a counter reset, and a
 * first reading that measures its own short window), memory with and without the node's
 * memory statistics, and pools read afresh. The host here answers from a script (the wire
 * of NODE_GET_CPU_STATS / NODE_GET_MEMORY_STATS is checked against the real libvirtd in
 * test/libvirt/procedures.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, LibvirtError } from '../../../electron/libvirt/errors.js';
import type { Caller } from '../../../electron/libvirt/procedures.js';
import { HostLoadReader, busyShare, cpuTimesOf } from '../../../electron/services/hosts/host-load.js';

const stat = (field: string, value: bigint) => ({ field, value });
const cpu = (kernel: bigint, user: bigint, idle: bigint, iowait = 0n) => [
  stat('kernel', kernel),
  stat('user', user),
  stat('idle', idle),
  stat('iowait', iowait),
];

interface Script {
  /** Successive CPU readings (the last repeats); undefined: the driver has no node CPU statistics. */
  cpu?: Array<ReturnType<typeof cpu>>;
  /** Memory statistics (KiB); undefined: not supported (as the test driver). */
  memory?: Array<{ field: string; value: bigint }>;
  freeBytes: bigint;
  poolAvailable: () => bigint;
}

/** A host answering the reader's calls from `script`; counts the CPU readings. */
function host(script: Script): { client: Caller; cpuReads: () => number } {
  let reads = 0;
  const unsupported = (proc: string) =>
    LibvirtError.local(ErrorCode.NO_SUPPORT, `this function is not supported by the connection driver: ${proc}`, proc);
  const answer = (name: string, args: { nparams?: number } | undefined): unknown => {
    switch (name) {
      case 'NODE_GET_INFO':
        return {
          model: 'x86_64',
          memory: 16n * 1024n * 1024n,
          cpus: 4,
          mhz: 0,
          nodes: 1,
          sockets: 1,
          cores: 4,
          threads: 1,
        };
      case 'NODE_GET_FREE_MEMORY':
        return script.freeBytes;
      case 'NODE_GET_CPU_STATS': {
        if (!script.cpu) throw unsupported('virNodeGetCPUStats');
        if (args?.nparams === 0) return { params: [], nparams: 4 };
        const r = script.cpu[Math.min(reads, script.cpu.length - 1)]!;
        reads++;
        return { params: r, nparams: r.length };
      }
      case 'NODE_GET_MEMORY_STATS':
        if (!script.memory) throw unsupported('virNodeGetMemoryStats');
        return args?.nparams === 0
          ? { params: [], nparams: script.memory.length }
          : { params: script.memory, nparams: script.memory.length };
      case 'CONNECT_LIST_ALL_STORAGE_POOLS':
        return { pools: [{ name: 'default', uuid: Buffer.alloc(16) }], ret: 1 };
      case 'STORAGE_POOL_GET_INFO':
        return { state: 2, capacity: 100n * 2n ** 30n, allocation: 0n, available: script.poolAvailable() };
      default:
        throw new Error(`unexpected call ${name}`);
    }
  };
  const client = { call: async (name: string, args?: { nparams?: number }) => answer(name, args) } as unknown as Caller;
  return { client, cpuReads: () => reads };
}

/** A clock the test moves; sleeping moves it too. */
function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, sleep: async (ms: number) => void (at += ms), advance: (ms: number) => void (at += ms) };
}

describe('node CPU counters', () => {
  it('count kernel + user as busy, idle and iowait as not', () => {
    expect(cpuTimesOf(cpu(10n, 20n, 60n, 10n))).toEqual({ busyNs: 30n, totalNs: 100n });
    expect(cpuTimesOf([stat('idle', 5n)])).toBeUndefined();
  });

  it('give the busy share between two readings, and nothing across a reset', () => {
    const before = { busyNs: 1_000n, totalNs: 4_000n };
    expect(busyShare(before, { busyNs: 1_500n, totalNs: 6_000n })).toBe(0.25);
    // Counters that went back (the host restarted): no figure, not a negative one.
    expect(busyShare(before, { busyNs: 10n, totalNs: 50n })).toBeUndefined();
    expect(busyShare(before, before)).toBeUndefined();
  });
});

describe('HostLoadReader', () => {
  it("measures a host's first reading over a short window of its own, then over the time since the last ask", async () => {
    const c = clock();
    const h = host({
      cpu: [cpu(0n, 0n, 0n), cpu(100n, 100n, 600n), cpu(400n, 400n, 1_000n)],
      freeBytes: 2n ** 30n,
      poolAvailable: () => 90n * 2n ** 30n,
    });
    const reader = new HostLoadReader({ now: c.now, sleep: c.sleep, firstWindowMs: 500 });
    const first = await reader.read('edge-a', h.client);
    expect(first).toMatchObject({
      name: 'edge-a',
      cpuBusy: 0.25,
      cpuWindowMs: 500,
      cpus: 4,
      memoryBytes: 16 * 2 ** 30,
      freeMemoryBytes: 2 ** 30,
    });
    expect(h.cpuReads()).toBe(2);
    c.advance(5_000);
    // (800 - 200) busy of (1800 - 800) total.
    expect(await reader.read('edge-a', h.client)).toMatchObject({ cpuBusy: 0.6, cpuWindowMs: 5_000 });
    expect(h.cpuReads()).toBe(3);
  });

  it('reuses the last figure for an ask too soon after the previous one (two windows open at once)', async () => {
    const c = clock();
    const h = host({
      cpu: [cpu(0n, 0n, 0n), cpu(100n, 100n, 600n), cpu(900n, 900n, 600n)],
      freeBytes: 1n,
      poolAvailable: () => 1n,
    });
    const reader = new HostLoadReader({ now: c.now, sleep: c.sleep, minWindowMs: 1_000 });
    await reader.read('edge-a', h.client);
    c.advance(100);
    expect(await reader.read('edge-a', h.client)).toMatchObject({ cpuBusy: 0.25 });
    expect(h.cpuReads()).toBe(2);
  });

  it('refreshes memory and pool space at each ask, and uses page cache as available when the host reports it', async () => {
    const c = clock();
    let available = 90n * 2n ** 30n;
    const h = host({
      cpu: [cpu(0n, 0n, 0n), cpu(1n, 1n, 2n)],
      memory: [
        stat('total', 8n * 1024n * 1024n),
        stat('free', 1024n * 1024n),
        stat('buffers', 512n * 1024n),
        stat('cached', 512n * 1024n),
      ],
      freeBytes: 5n * 2n ** 30n,
      poolAvailable: () => available,
    });
    const reader = new HostLoadReader({ now: c.now, sleep: c.sleep });
    // The node's memory statistics are one set: their total, not NODE_GET_INFO's, and their free, not NODE_GET_FREE_MEMORY's.
    expect(await reader.read('edge-a', h.client)).toMatchObject({
      memoryBytes: 8 * 2 ** 30,
      freeMemoryBytes: 2 ** 30,
      availableMemoryBytes: 2 * 2 ** 30,
      pools: [{ name: 'default', active: true, availableBytes: 90 * 2 ** 30 }],
    });
    available = 80n * 2n ** 30n;
    c.advance(5_000);
    expect((await reader.read('edge-a', h.client)).pools[0]!.availableBytes).toBe(80 * 2 ** 30);
  });

  it('answers memory and pools without a CPU figure from a driver without node statistics', async () => {
    const c = clock();
    const h = host({ freeBytes: 3n * 2n ** 30n, poolAvailable: () => 5n });
    const load = await new HostLoadReader({ now: c.now, sleep: c.sleep }).read('edge-a', h.client);
    expect(load.cpuBusy).toBeUndefined();
    expect(load).toMatchObject({
      memoryBytes: 16 * 2 ** 30,
      freeMemoryBytes: 3 * 2 ** 30,
      availableMemoryBytes: 3 * 2 ** 30,
      pools: [{ availableBytes: 5 }],
    });
  });

  it('starts over after counters go back (another hypervisor, a restart) instead of showing a negative share', async () => {
    const c = clock();
    const h = host({
      cpu: [cpu(500n, 500n, 1_000n), cpu(600n, 600n, 1_200n), cpu(10n, 10n, 20n), cpu(20n, 20n, 40n)],
      freeBytes: 1n,
      poolAvailable: () => 1n,
    });
    const reader = new HostLoadReader({ now: c.now, sleep: c.sleep });
    await reader.read('edge-a', h.client);
    c.advance(5_000);
    expect((await reader.read('edge-a', h.client)).cpuBusy).toBeUndefined();
    c.advance(5_000);
    expect((await reader.read('edge-a', h.client)).cpuBusy).toBe(0.5);
  });
});
