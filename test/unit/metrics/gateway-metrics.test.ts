/**
 * The gateway's counters for Prometheus (electron/services/metrics/gateway-metrics.ts, issue
 * 40): requests by client, member and outcome, bytes by direction, summed over the access
 * log's entries as they are read.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { gatewayMetrics } from '../../../electron/services/metrics/gateway-metrics.js';
import type { GatewayAccessEntry } from '../../../shared/gateway.js';

const base = { at: '2026-12-07T21:00:00.000Z', source: '127.0.0.1', method: 'CONNECT', target: 'x:443', ms: 5 };
const ok = (member: string, bytesOut: number, bytesIn: number): GatewayAccessEntry => ({
  ...base,
  client: 'ci',
  member,
  host: 'edge-a',
  tries: 1,
  bytesOut,
  bytesIn,
  outcome: 'ok',
});

describe('the gateway counters', () => {
  it('counts requests by client, member and outcome, and bytes each way', async () => {
    const registry = new Registry();
    const m = gatewayMetrics(registry);
    m.count([ok('web-1', 100, 2000), ok('web-1', 50, 10)]);
    m.count([ok('web-2', 1, 1), { ...base, tries: 0, bytesOut: 0, bytesIn: 0, outcome: 'refused', status: 407 }]);
    const text = await registry.metrics();
    expect(text).toContain('egress_gateway_requests_total{client="ci",proxy="web-1",host="edge-a",outcome="ok"} 2');
    expect(text).toContain('egress_gateway_requests_total{client="ci",proxy="web-2",host="edge-a",outcome="ok"} 1');
    expect(text).toContain('egress_gateway_requests_total{client="",proxy="",host="",outcome="refused"} 1');
    expect(text).toContain('egress_gateway_bytes_total{client="ci",proxy="web-1",host="edge-a",direction="out"} 150');
    expect(text).toContain('egress_gateway_bytes_total{client="ci",proxy="web-1",host="edge-a",direction="in"} 2010');
  });
});
