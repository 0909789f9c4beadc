/**
 * A domain's counters read out of its CONNECT_GET_ALL_DOMAIN_STATS record: `cpu.time`, and
 * `net.<i>.rx|tx.bytes|pkts` summed over `net.count` interfaces. A field a record lacks (a
 * group skipped under NOWAIT, an interface without counters) counts as zero, so the rate
 * maths sees it as a counter that went back and starts afresh rather than a leap.
 */
import type { DomainCounters } from './libvirt-api.js';

type StatsRecord = Record<string, number | bigint | boolean | string>;

function counter(stats: StatsRecord, field: string): number {
  const v = stats[field];
  // Unsigned 64-bit counters arrive as bigint; a number keeps them exact up to 2^53 (104 days of CPU time in ns).
  return typeof v === 'bigint' ? Number(v) : typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** The counters of domain `name` (running as `id`) from its flattened stats record. */
export function countersFromStats(name: string, id: number, stats: StatsRecord): DomainCounters {
  const out: DomainCounters = {
    name,
    id,
    cpuTimeNs: counter(stats, 'cpu.time'),
    rxBytes: 0,
    rxPackets: 0,
    txBytes: 0,
    txPackets: 0,
  };
  const count = counter(stats, 'net.count');
  for (let i = 0; i < count; i++) {
    out.rxBytes += counter(stats, `net.${i}.rx.bytes`);
    out.rxPackets += counter(stats, `net.${i}.rx.pkts`);
    out.txBytes += counter(stats, `net.${i}.tx.bytes`);
    out.txPackets += counter(stats, `net.${i}.tx.pkts`);
  }
  return out;
}
