/**
 * Rates from two readings of a domain's cumulative counters: bytes and packets a second
 * in and out, and CPU as a percentage of one host core (like top: a guest busy on two
 * vCPUs shows 200 %). Pure: the sampler (services/app/fleet-stats.ts) gives it readings.
 */
import type { DomainCounters } from '../provider/kvm/libvirt-api.js';

/** A domain's counters and when they were read (ms since the epoch). */
export interface Reading {
  at: number;
  counters: DomainCounters;
}

/** What a proxy moved and used per second between two readings; `in` is into the proxy's VM. */
export interface Rates {
  inBps: number;
  outBps: number;
  inPps: number;
  outPps: number;
  cpuPercent: number;
}

/** The names of {@link Rates}, in the order the history stores them. */
export const RATE_FIELDS = ['inBps', 'outBps', 'inPps', 'outPps', 'cpuPercent'] as const satisfies ReadonlyArray<
  keyof Rates
>;

/**
 * The rates between `prev` and `next`, or undefined when they cannot be told: the domain
 * ran again in between (a new id, its counters restarted from zero), a counter went back
 * (reset under the same id, e.g. a hot-unplugged NIC), or no time passed. The caller then
 * keeps `next` as the new base: the interval after it has rates again.
 */
export function ratesBetween(prev: Reading, next: Reading): Rates | undefined {
  const a = prev.counters;
  const b = next.counters;
  const seconds = (next.at - prev.at) / 1000;
  if (!(seconds > 0) || a.id !== b.id) return undefined;
  const d = {
    rxBytes: b.rxBytes - a.rxBytes,
    txBytes: b.txBytes - a.txBytes,
    rxPackets: b.rxPackets - a.rxPackets,
    txPackets: b.txPackets - a.txPackets,
    cpu: b.cpuTimeNs - a.cpuTimeNs,
  };
  if (Object.values(d).some((v) => v < 0)) return undefined;
  return {
    inBps: Math.round(d.rxBytes / seconds),
    outBps: Math.round(d.txBytes / seconds),
    inPps: hundredths(d.rxPackets / seconds),
    outPps: hundredths(d.txPackets / seconds),
    cpuPercent: hundredths((d.cpu / 1e9 / seconds) * 100),
  };
}

/**
 * Rounded to what any view shows and more: whole bytes, hundredths of a packet or a percent.
 * A sample's quotients are otherwise 17-digit fractions, which every sample of 1,000 proxies
 * turns into text for each window (serve, IPC) and each page parses back (bench (m)).
 */
function hundredths(v: number): number {
  return Math.round(v * 100) / 100;
}
