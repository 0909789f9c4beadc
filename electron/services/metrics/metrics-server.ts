/**
 * `egress-desk metrics`' HTTP server: GET /metrics answers the registry's exposition
 * (Prometheus text format); bound to 127.0.0.1 only (the figures name proxies and hosts,
 * and a scraper on another machine reaches it through its own tunnel if at all).
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(registry: Registry, port: number): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain' }).end('see GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
