/**
 * A large fleet without a large host: the proxies:list answer replaced on the wire by
 * Playwright's WebSocket routing, so the renderer under test is the product build,
 * unchanged, and the product has no test path. Used by the browser lane (the 1,000-row
 * test in views.test.ts, navigation.test.ts, a11y.test.ts); benchmarks (g) and (m) use the
 * same faking on a real socket (ws-relay.ts).
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

/**
 * The metadata a proxy's domain carries, as an inspection shows it, made from the record the
 * listing shows: a fake inspection agrees with its fake listing (the unit tests' fake bridge
 * uses it too).
 */
export function metadataOf(proxy: ProxyRecordView): ProxyInspectionView['metadata'] {
  return {
    formatVersion: 1,
    name: proxy.name,
    owner: proxy.owner,
    host: proxy.host,
    machineType: proxy.machineType,
    image: proxy.image,
    port: proxy.port,
    createdAt: proxy.createdAt,
    specHash: proxy.specHash,
    extra: [],
  };
}

/** An inspection of one of {@link fakeProxies}: its metadata, a small domain XML and a seed (password masked, as the backend sends it). */
export function fakeInspection(proxy: ProxyRecordView): ProxyInspectionView {
  return {
    proxy,
    metadata: metadataOf(proxy),
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
 * The faking of one socket's answers, whatever carries it (Playwright's routing here, a real
 * socket in ws-relay.ts): `fromPage` notes the calls of the channels named in `answers` (the
 * call still goes to the backend, so the order of messages is the real one); `fromServer`
 * gives the text to send the page for a message of the backend, and the faked channel when it
 * replaced an answer.
 */
export function answerFaker(answers: FakeAnswers): {
  fromPage(message: string): void;
  fromServer(message: string): { text: string; channel?: string };
} {
  const faked = new Map<number, { channel: string; value: unknown }>();
  return {
    fromPage(message) {
      const request = JSON.parse(message) as { id: number; channel: string; input?: unknown };
      const value = answers[request.channel]?.(request.input);
      if (value !== undefined) faked.set(request.id, { channel: request.channel, value });
    },
    fromServer(message) {
      const response = JSON.parse(message) as { id?: number; envelope?: unknown };
      const fake = response.id === undefined ? undefined : faked.get(response.id);
      if (!fake) return { text: message };
      faked.delete(response.id!);
      return {
        text: JSON.stringify({ id: response.id, envelope: { ok: true, value: fake.value } }),
        channel: fake.channel,
      };
    },
  };
}

/**
 * Routes the page's `/ws` to the real serve, answering the calls of the channels named in
 * `answers` with their value instead of the backend's ({@link answerFaker}). Playwright
 * delivers each message to the page through a DevTools call, which costs the page's main
 * thread far more than a socket's frame for a large message: the benchmarks, which time
 * the page, use ws-relay.ts.
 *
 * With `hold`, the page's first call on that channel gets its answer (faked or not) only when
 * the returned function is called, and every message after that answer waits behind it, in
 * order: the page as it is while the backend is still at work (the Proxies table before its
 * listing arrives). Without it the returned function does nothing.
 */
export async function routeAnswers(
  page: Page,
  answers: FakeAnswers,
  { hold }: { hold?: string } = {},
): Promise<() => void> {
  let released = hold === undefined;
  let heldId: number | undefined;
  const queue: string[] = [];
  let flush = (): void => undefined;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    const faker = answerFaker(answers);
    flush = () => {
      for (const text of queue.splice(0)) ws.send(text);
    };
    ws.onMessage((m) => {
      if (!released && heldId === undefined) {
        const request = JSON.parse(String(m)) as { id: number; channel: string };
        if (request.channel === hold) heldId = request.id;
      }
      faker.fromPage(String(m));
      server.send(m);
    });
    server.onMessage((m) => {
      const text = faker.fromServer(String(m)).text;
      if (released) return ws.send(text);
      const id = (JSON.parse(String(m)) as { id?: number }).id;
      if (queue.length > 0 || (id !== undefined && id === heldId)) queue.push(text);
      else ws.send(text);
    });
  });
  return () => {
    released = true;
    flush();
  };
}

/** {@link routeAnswers} for `proxies:list` alone: every listing is `proxies`, on no host. */
export async function routeProxiesList(page: Page, proxies: readonly ProxyRecordView[]): Promise<void> {
  await routeAnswers(page, { 'proxies:list': () => ({ proxies, hosts: [] }) });
}
