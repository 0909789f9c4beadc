/**
 * Is the proxy up? Addresses come from the network's DHCP leases (by MAC), the guest
 * agent and the host's ARP table, each labelled with its source; ready means the proxy
 * port accepts a TCP connection. Each round is short and bounded, and a lifecycle event
 * of the domain starts the next round at once: no slow polling.
 */
import type { ResolvedKVMHost } from '../../../../shared/config.js';
import { isLostConnection } from './errors.js';
import type { AddressSource, DomainEvent, GuestAddress, LibvirtApi } from './libvirt-api.js';
import { messageOf } from '../../../../shared/errors.js';

/** Tries a TCP connection to `address:port` as seen from `host` (locally, through the host's SSH connection, or inside a test namespace). */
export type PortProbe = (host: ResolvedKVMHost, address: string, port: number, signal: AbortSignal) => Promise<boolean>;

/** What was learnt about a guest's addresses, and why sources were silent. */
export interface AddressReport {
  addresses: GuestAddress[];
  /** Per source: undefined when it answered, else why not (`agent not answering: …`). */
  problems: Partial<Record<AddressSource, string>>;
  /** Set when a source failed because the host's connection is gone: no later round can learn anything on it. */
  lost?: unknown;
}

function usable(a: GuestAddress): boolean {
  if (a.family === 'ipv4') return !a.address.startsWith('127.') && !a.address.startsWith('169.254.');
  return a.address !== '::1' && !a.address.toLowerCase().startsWith('fe80');
}

/** A domain's network interface, as its XML says: the MAC, and the libvirt network when it is on one. */
export interface Nic {
  mac: string;
  network?: string | undefined;
}

/**
 * Asks every source at once. The agent answers only once the guest runs it; ARP inside a
 * network namespace may fail ("wrong nlmsg len"): both are reported, never fatal. Leases
 * come from the network the interface is on (its XML), else the host entry's network.
 */
export async function collectAddresses(
  api: LibvirtApi,
  host: ResolvedKVMHost,
  domain: string,
  nic: Nic,
): Promise<AddressReport> {
  const { mac } = nic;
  const network = nic.network ?? host.network;
  const problems: AddressReport['problems'] = {};
  let lost: unknown;
  const ask = async (source: AddressSource, run: () => Promise<GuestAddress[]>): Promise<GuestAddress[]> => {
    try {
      return await run();
    } catch (err) {
      if (isLostConnection(err)) lost ??= err;
      problems[source] = messageOf(err);
      return [];
    }
  };
  const sameMac = (a: GuestAddress) => a.mac === undefined || a.mac.toLowerCase() === mac.toLowerCase();
  const [lease, agent, arp] = await Promise.all([
    network ? ask('lease', () => api.dhcpLeases(network, mac)) : Promise.resolve([]),
    ask('agent', () => api.interfaceAddresses(domain, 'agent')),
    ask('arp', () => api.interfaceAddresses(domain, 'arp')),
  ]);
  if (!network)
    problems.lease = `host ${host.name} uses bridge ${host.bridge ?? '?'}: libvirt has no DHCP leases for it`;
  const addresses = currentAddresses(
    [...lease, ...agent, ...arp].filter((a) => sameMac(a) && usable(a)),
    true,
  );
  return lost === undefined ? { addresses, problems } : { addresses, problems, lost };
}

/**
 * The addresses the instance has now, from what the sources said about its MAC. A MAC can
 * carry several leases (an earlier instance of the same name, a guest that changed its
 * DHCP client id), and an address from an old lease may since belong to another VM: Copy
 * URL must never offer it. So: nothing while the domain is not running; the guest agent's
 * addresses when it answers (leases and ARP only where they agree with it); otherwise the
 * lease with the latest expiry per address family (ARP only where it agrees with that);
 * ARP alone only where there are no leases at all (a host bridge).
 */
export function currentAddresses(addresses: readonly GuestAddress[], running: boolean): GuestAddress[] {
  if (!running) return [];
  const agent = addresses.filter((a) => a.source === 'agent');
  if (agent.length) {
    const said = new Set(agent.map((a) => a.address));
    return addresses.filter((a) => said.has(a.address));
  }
  const leases = addresses.filter((a) => a.source === 'lease');
  const latest = new Map<GuestAddress['family'], GuestAddress>();
  for (const lease of leases) {
    const best = latest.get(lease.family);
    // A lease without an expiry never expires: nothing is newer.
    if (!best || (lease.expiresAt ?? Infinity) > (best.expiresAt ?? Infinity)) latest.set(lease.family, lease);
  }
  if (!leases.length) return addresses.filter((a) => a.source === 'arp');
  const kept = new Set([...latest.values()].map((a) => a.address));
  return addresses.filter((a) => kept.has(a.address) && (a.source === 'arp' || latest.get(a.family) === a));
}

/** Addresses to try, IPv4 first, each once, leases before the agent before ARP. */
export function candidates(addresses: readonly GuestAddress[]): string[] {
  const order = [...addresses].sort((a, b) => (a.family === b.family ? 0 : a.family === 'ipv4' ? -1 : 1));
  return [...new Set(order.map((a) => a.address))];
}

export interface WaitOptions {
  api: LibvirtApi;
  host: ResolvedKVMHost;
  domain: string;
  mac: string;
  /** The network the interface is on (default: the host entry's). */
  network?: string;
  port: number;
  probe: PortProbe;
  /** Give up at this instant (ms since the epoch, by `now`). */
  deadline: number;
  now: () => number;
  signal?: AbortSignal;
  /** Time between rounds while no address is known (default 1 s). */
  intervalMs?: number;
  /**
   * Time between rounds once the guest has an address and only the proxy port is awaited
   * (default 200 ms): readiness is to be reported within a second of the port opening
   * (docs/performance.md), and a bounded probe of a known address is cheap.
   */
  probeIntervalMs?: number;
  /** Bound on one connection attempt (default 2 s). */
  probeTimeoutMs?: number;
  /** Called once, with the first usable addresses. */
  onAddress?: (addresses: GuestAddress[]) => void;
}

export type WaitResult =
  | { ready: true; address: string; addresses: GuestAddress[] }
  | { ready: false; step: 'address' | 'proxy'; seen: string; addresses: GuestAddress[] };

/** Rounds once an address is known (see WaitOptions.probeIntervalMs). */
export const PROBE_INTERVAL_MS = 200;

/** Waits until the proxy port answers on one of the guest's addresses, or the deadline passes. */
export async function waitForProxy(o: WaitOptions): Promise<WaitResult> {
  const interval = o.intervalMs ?? 1_000;
  let wake: (() => void) | undefined;
  let stopped: string | undefined;
  const onEvent = (e: DomainEvent): void => {
    if (e.domain !== o.domain) return;
    if (e.event === 'STOPPED' || e.event === 'CRASHED' || e.event === 'UNDEFINED')
      stopped = `the domain ${e.event.toLowerCase()}`;
    wake?.();
  };
  const unsubscribe = await o.api.onLifecycle(onEvent).catch(() => undefined);
  let announced = false;
  let lastProbe = '';
  try {
    for (;;) {
      if (o.signal?.aborted) throw o.signal.reason instanceof Error ? o.signal.reason : new Error('cancelled');
      const report = await collectAddresses(o.api, o.host, o.domain, { mac: o.mac, network: o.network });
      // The connection the wait runs on is gone (the daemon restarted, the session was cut):
      // the launch fails now, naming why, instead of waiting out its timeout on a dead line.
      if (report.lost !== undefined) throw report.lost;
      if (report.addresses.length && !announced) {
        announced = true;
        o.onAddress?.(report.addresses);
      }
      for (const address of candidates(report.addresses)) {
        const signals = [AbortSignal.timeout(o.probeTimeoutMs ?? 2_000), ...(o.signal ? [o.signal] : [])];
        const open = await o.probe(o.host, address, o.port, AbortSignal.any(signals)).catch((err: unknown) => {
          lastProbe = messageOf(err);
          return false;
        });
        if (open) return { ready: true, address, addresses: report.addresses };
      }
      if (stopped || o.now() >= o.deadline) {
        const step = report.addresses.length ? 'proxy' : 'address';
        return { ready: false, step, seen: describe(report, o, lastProbe, stopped), addresses: report.addresses };
      }
      const pace = announced ? Math.min(interval, o.probeIntervalMs ?? PROBE_INTERVAL_MS) : interval;
      const wait = Math.max(0, Math.min(pace, o.deadline - o.now()));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    await unsubscribe?.().catch(() => undefined);
  }
}

/** The honest account of what was seen: which sources said what, and whether the port was tried. */
function describe(report: AddressReport, o: WaitOptions, lastProbe: string, stopped: string | undefined): string {
  const parts: string[] = [];
  if (stopped) parts.push(stopped);
  const lease = report.addresses.filter((a) => a.source === 'lease');
  if (o.host.network)
    parts.push(
      lease.length
        ? `DHCP lease ${lease.map((a) => a.address).join(', ')}`
        : `no DHCP lease for ${o.mac} on network ${o.host.network} yet`,
    );
  parts.push(
    report.problems.agent
      ? `guest agent not answering (${report.problems.agent})`
      : `guest agent reports ${
          report.addresses
            .filter((a) => a.source === 'agent')
            .map((a) => a.address)
            .join(', ') || 'no address'
        }`,
  );
  const arp = report.addresses.filter((a) => a.source === 'arp');
  if (arp.length) parts.push(`ARP ${arp.map((a) => a.address).join(', ')}`);
  if (report.addresses.length) parts.push(`port ${o.port} closed${lastProbe ? ` (${lastProbe})` : ''}`);
  return parts.join('; ');
}
