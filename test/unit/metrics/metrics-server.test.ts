/** The metrics endpoint: scraped over loopback, its exposition parsed line by line and checked against the figures it was given. */
import { afterEach, describe, expect, it } from 'vitest';
import { fleetRegistry } from '../../../electron/services/metrics/fleet-metrics.js';
import { type MetricsServer, startMetricsServer } from '../../../electron/services/metrics/metrics-server.js';
import type { FleetFigures } from '../../../shared/fleet-figures.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format's sample lines (`name{a="b",…} value`); `# HELP`/`# TYPE` lines by name. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]),
    );
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

let figures: FleetFigures = { at: 0, failedHosts: [], proxies: [] };
let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const value = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('egress-desk metrics (endpoint)', () => {
  it('counters, gauges and health state per proxy with proxy and host labels, read afresh at each scrape', async () => {
    figures = {
      at: 1,
      failedHosts: [{ host: 'edge-b', error: 'down' }],
      proxies: [
        {
          name: 'web',
          host: 'edge-a',
          domain: 'ep-web',
          rates: { inBps: 100, outBps: 200, inPps: 1, outPps: 2, cpuPercent: 1.5 },
          totals: { inBytes: 5000, outBytes: 7000, inPackets: 50, outPackets: 70, cpuSeconds: 12.5 },
          health: { host: 'edge-a', domain: 'ep-web', name: 'web', state: 'slow', since: 0, latencyMs: 2500 },
        },
        { name: 'api', host: 'edge-a', domain: 'ep-api', rates: null, totals: null, health: null },
      ],
    };
    server = await startMetricsServer(
      fleetRegistry(() => figures),
      0,
    );
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const { samples, types } = parseExposition(await res.text());
    const web = { proxy: 'web', host: 'edge-a' };
    expect(types.get('egress_proxy_received_bytes_total')).toBe('counter');
    expect(types.get('egress_proxy_health_state')).toBe('gauge');
    expect(value(samples, 'egress_proxy_received_bytes_total', web)).toBe(5000);
    expect(value(samples, 'egress_proxy_sent_bytes_total', web)).toBe(7000);
    expect(value(samples, 'egress_proxy_sent_packets_total', web)).toBe(70);
    expect(value(samples, 'egress_proxy_cpu_seconds_total', web)).toBe(12.5);
    expect(value(samples, 'egress_proxy_send_bytes_per_second', web)).toBe(200);
    expect(value(samples, 'egress_proxy_probe_latency_seconds', web)).toBe(2.5);
    expect(value(samples, 'egress_proxy_health_state', { ...web, state: 'slow' })).toBe(1);
    expect(value(samples, 'egress_proxy_health_state', { ...web, state: 'healthy' })).toBe(0);
    // A proxy without figures: its health is unknown, and it has no counter rather than a 0 that would look like a reset.
    expect(value(samples, 'egress_proxy_health_state', { proxy: 'api', state: 'unknown' })).toBe(1);
    expect(value(samples, 'egress_proxy_received_bytes_total', { proxy: 'api' })).toBeUndefined();
    expect(value(samples, 'egress_host_stats_failed', { host: 'edge-b' })).toBe(1);

    figures = {
      at: 2,
      failedHosts: [],
      proxies: [{ ...figures.proxies[0]!, totals: { ...figures.proxies[0]!.totals!, inBytes: 9000 } }],
    };
    const again = parseExposition(await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text()).samples;
    expect(value(again, 'egress_proxy_received_bytes_total', web)).toBe(9000);
    expect(again.some((s) => s.labels.proxy === 'api' || s.name === 'egress_host_stats_failed')).toBe(false);
    expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
  });
});
