/**
 * A large fleet without a large host: the proxies:list answer replaced on the wire by
 * Playwright's WebSocket routing, so the renderer under test is the product build,
 * unchanged, and the product has no test path. Used by the browser lane's 1,000-row test
 * (test/browser/views.test.ts) and by benchmark (g) (bench/ui.ts).
 */
import type { Page } from 'playwright-core';
import type { ProxyRecordView } from '../../shared/proxies.js';

/** `count` proxies named `bulk-0000`…, one host `local`, every 7th shut off, each with a lease address. */
export function fakeProxies(count: number, sha256 = '0'.repeat(64)): ProxyRecordView[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `bulk-${String(i).padStart(4, '0')}`,
    id: `ep-bulk-${i}`,
    host: 'local',
    state: i % 7 === 0 ? 'shutoff' : 'running',
    port: 3128,
    machineType: 'tiny',
    image: { name: 'tiny', sha256 },
    createdAt: new Date(Date.now() - i * 60_000).toISOString(),
    owner: 'egress-desk',
    specHash: 'x',
    addresses: [{ address: `192.168.150.${(i % 250) + 2}`, prefix: 24, family: 'ipv4', source: 'lease' }],
  }));
}

/**
 * Routes the page's `/ws` to the real serve, answering every `proxies:list` with `proxies`
 * instead of the backend's listing. `beforeAnswer` runs just before each fake answer is
 * sent (benchmark (g) reads Chromium's CPU counters there); other messages are not held.
 */
export async function routeProxiesList(page: Page, proxies: readonly ProxyRecordView[], beforeAnswer?: () => Promise<void>): Promise<void> {
  const text = (id: number) => JSON.stringify({ id, envelope: { ok: true, value: { proxies, hosts: [] } } });
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    const lists = new Set<number>();
    ws.onMessage((m) => {
      const request = JSON.parse(String(m)) as { id: number; channel: string };
      if (request.channel === 'proxies:list') lists.add(request.id);
      server.send(m);
    });
    server.onMessage((m) => {
      const response = JSON.parse(String(m)) as { id?: number; envelope?: unknown };
      if (response.id === undefined || !lists.has(response.id)) ws.send(m);
      else if (beforeAnswer) void beforeAnswer().then(() => ws.send(text(response.id!)));
      else ws.send(text(response.id));
    });
  });
}
