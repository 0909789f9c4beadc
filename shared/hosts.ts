/** What the front ends know about a host: its connection state and, once connected, its facts. */
import { z } from 'zod';

/**
 * `reconnecting`: the connection was lost (the daemon restarted, the network dropped) and the
 * app reopens it by itself, with backoff; the message says why and when it tries next.
 */
export const HOST_STATES = [
  'connecting',
  'connected',
  'reconnecting',
  'auth-needed',
  'host-key-unknown',
  'error',
] as const;
export type HostState = (typeof HOST_STATES)[number];

export const PoolInfoSchema = z.object({
  name: z.string(),
  active: z.boolean(),
  capacityBytes: z.number(),
  availableBytes: z.number(),
});

export const HostInfoSchema = z.object({
  hostname: z.string(),
  libvirtVersion: z.string(),
  /** e.g. `QEMU` */
  hypervisor: z.string(),
  hypervisorVersion: z.string(),
  cpuModel: z.string(),
  cpus: z.number(),
  memoryBytes: z.number(),
  freeMemoryBytes: z.number(),
  /** Whether libvirt offers KVM on this host (domain capabilities). */
  kvm: z.boolean(),
  /** libvirt's host UUID: entries with the same one reach the same hypervisor. */
  uuid: z.string().optional(),
  pools: z.array(PoolInfoSchema),
  networks: z.array(z.object({ name: z.string(), active: z.boolean() })),
  domainCount: z.number(),
});
export type HostInfo = z.infer<typeof HostInfoSchema>;

export const HostStatusSchema = z.object({
  name: z.string(),
  address: z.string(),
  /** How it is reached: `unix:/path` or `ssh://user@host:port`. */
  via: z.string(),
  state: z.enum(HOST_STATES),
  /** Why it is not connected: what happened and what to do. */
  message: z.string().optional(),
  /** For host-key-unknown: the key to confirm. */
  fingerprint: z.string().optional(),
  /**
   * For auth-needed, what would let it in: `passphrase` when the identity file {@link keyFile}
   * is encrypted and no agent key was accepted (answer it with hosts:unlock).
   */
  needs: z.enum(['passphrase']).optional(),
  /** The encrypted identity file a passphrase is needed for. */
  keyFile: z.string().optional(),
  /** Where a remembered passphrase would be kept (shown beside "remember"), or why it cannot be. */
  secretStore: z.object({ available: z.boolean(), description: z.string() }).optional(),
  /** For error: the host presented a key other than the recorded one; the connection was refused (never trusted from the app). */
  hostKeyMismatch: z.boolean().optional(),
  /**
   * What the person should know about how the host's SSH settings were resolved, each as
   * `file line N: message` (an ssh_config `Match exec` that was not run, an unsupported
   * option): set once a connection has been tried, whatever its outcome.
   */
  warnings: z.array(z.string()).optional(),
  info: HostInfoSchema.optional(),
});
export type HostStatus = z.infer<typeof HostStatusSchema>;

/**
 * Entries that reach the same hypervisor as an earlier entry of the list (same libvirt host
 * UUID): entry name → the first entry on that hypervisor. Hosts not connected yet are
 * not judged. The Hosts view shows it ("same hypervisor as `one`"); the fleet lists such a
 * hypervisor's domains once.
 */
export function sameHypervisorAs(statuses: ReadonlyArray<Pick<HostStatus, 'name' | 'info'>>): Map<string, string> {
  const first = new Map<string, string>();
  const same = new Map<string, string>();
  for (const s of statuses) {
    const uuid = s.info?.uuid;
    if (!uuid) continue;
    const leader = first.get(uuid);
    if (leader === undefined) first.set(uuid, s.name);
    else same.set(s.name, leader);
  }
  return same;
}

/**
 * A host's load now, as the Hosts view refreshes it while it shows (`hosts:load`): the
 * host's own CPU (libvirt's node CPU counters, every process on the host, not only the
 * proxies), its memory and its pools' space, read at `at` (ms since the epoch).
 */
export const HostLoadSchema = z.object({
  name: z.string(),
  at: z.number(),
  /**
   * Busy share of all the host's cores (0–1) between the previous reading and this one
   * (`kernel + user` over `kernel + user + idle + iowait`); absent on a first reading
   * made too soon after the previous one to mean anything, or when the host gives no CPU counters.
   */
  cpuBusy: z.number().min(0).max(1).optional(),
  /** Over how long `cpuBusy` was measured, ms. */
  cpuWindowMs: z.number().optional(),
  cpus: z.number(),
  memoryBytes: z.number(),
  freeMemoryBytes: z.number(),
  /** Free plus what the kernel can give back (buffers, page cache), when the host reports them (NODE_GET_MEMORY_STATS); else the free memory. */
  availableMemoryBytes: z.number(),
  pools: z.array(PoolInfoSchema),
});
export type HostLoad = z.infer<typeof HostLoadSchema>;
