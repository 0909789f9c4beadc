/**
 * The gateway's counters for Prometheus (issue 40), from its access log: requests and
 * bytes per client and per member since `egress-desk metrics` started reading the log.
 * Counted from the log rather than asked of a gateway, so they hold for the gateway of the
 * app and of `egress-desk gateway` alike, and need no second listener.
 */
import { Counter, type Registry } from 'prom-client';
import type { GatewayAccessEntry } from '../../../shared/gateway.js';

/** Adds the gateway's counters to `registry`; call `count` with each access-log entry read. */
export function gatewayMetrics(registry: Registry): { count(entries: readonly GatewayAccessEntry[]): void } {
  const requests = new Counter({
    name: 'egress_gateway_requests_total',
    help: 'Requests the gateway ended, by client, member (proxy and host; empty when none took it) and outcome',
    labelNames: ['client', 'proxy', 'host', 'outcome'] as const,
    registers: [registry],
  });
  const bytes = new Counter({
    name: 'egress_gateway_bytes_total',
    help: 'Bytes the gateway relayed, by client, member and direction (out: client to target; in: back)',
    labelNames: ['client', 'proxy', 'host', 'direction'] as const,
    registers: [registry],
  });
  return {
    count(entries) {
      for (const e of entries) {
        const who = { client: e.client ?? '', proxy: e.member ?? '', host: e.host ?? '' };
        requests.inc({ ...who, outcome: e.outcome });
        if (e.bytesOut) bytes.inc({ ...who, direction: 'out' }, e.bytesOut);
        if (e.bytesIn) bytes.inc({ ...who, direction: 'in' }, e.bytesIn);
      }
    },
  };
}
