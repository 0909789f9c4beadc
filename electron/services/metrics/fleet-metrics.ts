/**
 * The fleet's figures as Prometheus metrics (prom-client), read when scraped: per proxy,
 * counters of what its VM moved and used since its domain started (libvirt's cumulative
 * counters, so a restart is a counter reset, which Prometheus' rate() handles), gauges of
 * the rates over the last sampling interval, its health state (one series per state, 1 for
 * the current one) and its last probe's latency. Labels: `proxy` and `host`.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { FleetFigures } from '../../../shared/fleet-figures.js';
import { HEALTH_STATES } from '../../../shared/health.js';

const LABELS = ['proxy', 'host'] as const;

/** A registry whose metrics are filled from `figures()` at each scrape (nothing is kept between scrapes). */
export function fleetRegistry(figures: () => FleetFigures): Registry {
  const registry = new Registry();
  const counter = (name: string, help: string, collect?: () => void) =>
    new Counter({ name, help, labelNames: LABELS, registers: [registry], ...(collect ? { collect } : {}) });
  const gauge = (name: string, help: string, labelNames: readonly string[] = LABELS) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  const totals = {
    // The first metric registered is collected first (synchronously, before the others): it fills them all from one read of the figures.
    inBytes: counter('egress_proxy_received_bytes_total', 'Bytes into the proxy VM since its domain started', () =>
      fill(),
    ),
    outBytes: counter('egress_proxy_sent_bytes_total', 'Bytes out of the proxy VM since its domain started'),
    inPackets: counter('egress_proxy_received_packets_total', 'Packets into the proxy VM since its domain started'),
    outPackets: counter('egress_proxy_sent_packets_total', 'Packets out of the proxy VM since its domain started'),
    cpuSeconds: counter('egress_proxy_cpu_seconds_total', 'CPU time the proxy VM used since its domain started'),
  };
  const rates = {
    inBps: gauge(
      'egress_proxy_receive_bytes_per_second',
      'Bytes a second into the proxy VM over the last sampling interval',
    ),
    outBps: gauge(
      'egress_proxy_send_bytes_per_second',
      'Bytes a second out of the proxy VM over the last sampling interval',
    ),
    cpuPercent: gauge('egress_proxy_cpu_percent', 'CPU time per wall time of the proxy VM, percent of one host core'),
  };
  const state = gauge('egress_proxy_health_state', 'Health through the proxy: 1 for its current state', [
    ...LABELS,
    'state',
  ]);
  const latency = gauge(
    'egress_proxy_probe_latency_seconds',
    'Connect to answer headers of the last health probe that got an answer',
  );
  const failed = gauge(
    'egress_host_stats_failed',
    'The host could not be listed or asked for stats in the last sample',
    ['host'],
  );
  const fill = () => {
    const f = figures();
    for (const m of [...Object.values(totals), ...Object.values(rates), state, latency, failed]) m.reset();
    for (const p of f.proxies) {
      const labels = { proxy: p.name, host: p.host };
      if (p.totals)
        for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k].inc(labels, p.totals[k]);
      if (p.rates) for (const k of Object.keys(rates) as Array<keyof typeof rates>) rates[k].set(labels, p.rates[k]);
      const now = p.health?.state ?? 'unknown';
      for (const s of HEALTH_STATES) state.set({ ...labels, state: s }, s === now ? 1 : 0);
      if (p.health?.latencyMs !== undefined) latency.set(labels, p.health.latencyMs / 1000);
    }
    for (const h of f.failedHosts) failed.set({ host: h.host }, 1);
  };
  return registry;
}
