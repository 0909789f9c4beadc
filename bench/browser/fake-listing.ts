/**
 * A large fleet without a large host: the proxies:list answer replaced on the wire by
 * Playwright's WebSocket routing, so the renderer under test is the product build,
 * unchanged, and the product has no test path. Used by the browser lane (the 1,000-row
 * test in views.test.ts, navigation.test.ts, a11y.test.ts) and by benchmark (g) (bench/ui.ts).
 */
import type { Page } from 'playwright-core';
import { MASK, type ProxyInspectionView, type ProxyRecordView } from '../../shared/proxies.js';

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

/** An inspection of one of {@link fakeProxies}: its metadata, a small domain XML and a seed (password masked, as the backend sends it). */
export function fakeInspection(proxy: ProxyRecordView): ProxyInspectionView {
  return {
    proxy,
    metadata: { formatVersion: 1, name: proxy.name, owner: proxy.owner, host: proxy.host, machineType: proxy.machineType, image: proxy.image, port: proxy.port, createdAt: proxy.createdAt, specHash: proxy.specHash, extra: [] },
    domainXml: `<domain type="qemu">\n  <name>${proxy.id}</name>\n  <metadata>\n    <instance xmlns="urn:egress-proxies:kvm:v1"><name>${proxy.name}</name></instance>\n  </metadata>\n</domain>\n`,
    addresses: proxy.addresses,
    problems: {},
    hasCredentials: true,
    seed: {
      userData: `#cloud-config\nhostname: ${proxy.name}\nwrite_files:\n  - path: /etc/tinyproxy/auth\n    content: "egress:${MASK}"\n`,
      metaData: `instance-id: ${proxy.id}\nlocal-hostname: ${proxy.name}\n`,
      vendorData: '#cloud-config\npackages: [qemu-guest-agent]\n',
      exact: true,
    },
  };
}

/** What the fake answers a call with: a value, or undefined to let the real backend answer. */
export type FakeAnswers = Record<string, (input: unknown) => unknown>;

/**
 * Routes the page's `/ws` to the real serve, answering the calls of the channels named in
 * `answers` with their value instead of the backend's (the call still goes to the backend,
 * so the order of messages is the real one). `beforeAnswer` runs just before each fake
 * answer is sent (benchmark (g) reads Chromium's CPU counters there); other messages are
 * not held. `onOpen` gets, for each socket the page opens, a function that sends the page
 * an event as serve would (benchmark (m) pushes figures with it).
 */
export async function routeAnswers(page: Page, answers: FakeAnswers, beforeAnswer?: (channel: string) => Promise<void>, onOpen?: (push: (event: string, payload: unknown) => void) => void): Promise<void> {
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    onOpen?.((event, payload) => ws.send(JSON.stringify({ event, payload })));
    const faked = new Map<number, { channel: string; value: unknown }>();
    ws.onMessage((m) => {
      const request = JSON.parse(String(m)) as { id: number; channel: string; input?: unknown };
      const value = answers[request.channel]?.(request.input);
      if (value !== undefined) faked.set(request.id, { channel: request.channel, value });
      server.send(m);
    });
    server.onMessage((m) => {
      const response = JSON.parse(String(m)) as { id?: number; envelope?: unknown };
      const fake = response.id === undefined ? undefined : faked.get(response.id);
      if (!fake) return void ws.send(m);
      const text = JSON.stringify({ id: response.id, envelope: { ok: true, value: fake.value } });
      faked.delete(response.id!);
      if (beforeAnswer) void beforeAnswer(fake.channel).then(() => ws.send(text));
      else ws.send(text);
    });
  });
}

/** {@link routeAnswers} for `proxies:list` alone: every listing is `proxies`, on no host. */
export function routeProxiesList(page: Page, proxies: readonly ProxyRecordView[], beforeAnswer?: () => Promise<void>): Promise<void> {
  return routeAnswers(page, { 'proxies:list': () => ({ proxies, hosts: [] }) }, beforeAnswer);
}
