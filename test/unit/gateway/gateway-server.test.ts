/**
 * The gateway's listener on loopback (electron/services/gateway/gateway-server.ts, issue
 * 40), with small HTTP proxies as members (test/support/little-proxy.ts) and an origin
 * server: 407 without the gateway's credentials and nothing relayed; CONNECT and plain
 * HTTP leave through a member with the member's own credentials; sequential requests are
 * spread evenly; a session stays; a member that cannot be reached is replaced within the
 * request, and one that closes without answering is replaced for a body-less request (never
 * for one with a body); a member's refusal is the answer; the access log holds no secret and no query
 * string; a bind outside loopback without clients is refused.
 */
import { type Server, createServer, request } from 'node:http';
import { type AddressInfo, connect, createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayAccessEntry,
  type GatewayMemberRoute,
  GatewayServer,
} from '../../../electron/services/gateway/gateway-server.js';
import type { GatewayClient } from '../../../shared/gateway.js';
import { GatewaySocksListener } from '../../../electron/services/gateway/gateway-socks.js';
import { SocksClient } from 'socks';
import { type LittleProxy, getThroughProxy, littleProxy } from '../../support/little-proxy.js';

const CLIENT: GatewayClient = { name: 'ci', password: 'gateway-secret-1' };
let origin: Server;
let originPort: number;
const proxies: LittleProxy[] = [];
let members: GatewayMemberRoute[];
let gateway: GatewayServer;
let gatewayPort: number;
let socks: GatewaySocksListener;
let socksPort: number;
const log: GatewayAccessEntry[] = [];

const member = (i: number, p: LittleProxy, over: Partial<GatewayMemberRoute> = {}): GatewayMemberRoute => ({
  key: `edge-${i < 2 ? 'a' : 'b'}/ep-m${i}`,
  name: `m${i}`,
  host: i < 2 ? 'edge-a' : 'edge-b',
  labels: { team: i === 1 ? 'db' : 'web' },
  usable: true,
  address: '127.0.0.1',
  port: p.port,
  credentials: { username: `user${i}`, password: `member-pass-${i}` },
  ...over,
});

beforeAll(async () => {
  origin = createServer((req, res) => res.end(`hello ${req.url}`));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originPort = (origin.address() as AddressInfo).port;
  for (let i = 0; i < 3; i++) proxies.push(await littleProxy(`user${i}`, `member-pass-${i}`));
  members = proxies.map((p, i) => member(i, p));
  gateway = new GatewayServer({
    members: () => members,
    clients: async () => [CLIENT],
    log: (e) => log.push(e),
    connectTimeoutMs: 2_000,
  });
  gatewayPort = (await gateway.listen(0)).port;
  socks = new GatewaySocksListener(gateway, async () => [CLIENT]);
  socksPort = (await socks.listen(0)).port;
});

afterAll(async () => {
  await socks.close();
  await gateway.close();
  for (const p of proxies) await p.close();
  await new Promise<void>((r) => origin.close(() => r()));
});

const auth = (user: string, password = CLIENT.password) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A plain GET through the gateway: status and body. */
const get = (path: string, user?: string) =>
  getThroughProxy(
    '127.0.0.1',
    gatewayPort,
    `http://127.0.0.1:${originPort}${path}`,
    user && `${user}:${CLIENT.password}`,
  );

/** A CONNECT through the gateway to the origin, then one GET in the tunnel: the CONNECT's status line and the body. */
function tunnel(user: string | undefined, path = '/t'): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: gatewayPort });
    let text = '';
    s.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.startsWith('HTTP/1.1 200') && text.includes('\r\n\r\n') && !text.includes('GET-SENT')) {
        text += 'GET-SENT';
        s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      }
    });
    s.on('end', () => {
      // The CONNECT's answer, then (when it opened) the origin's answer to the GET: its body is the last part.
      const parts = text.replace('GET-SENT', '').split('\r\n\r\n');
      resolve({ head: parts[0]!.split('\r\n')[0]!, body: parts.length > 2 ? parts.at(-1)! : '' });
    });
    s.on('error', reject);
    s.write(
      `CONNECT 127.0.0.1:${originPort} HTTP/1.1\r\nHost: 127.0.0.1:${originPort}\r\n${user ? `Proxy-Authorization: ${auth(user)}\r\n` : ''}\r\n`,
    );
  });
}

const relayedBy = () => proxies.map((p) => p.seen.length);

describe('the gateway on loopback', () => {
  it('answers 407 without credentials or with a wrong password, and relays nothing', async () => {
    const before = proxies.map((p) => p.connections);
    expect((await get('/x')).status).toBe(407);
    expect((await tunnel(undefined)).head).toMatch(/^HTTP\/1\.1 407/);
    const wrong = await new Promise<number>((resolve) => {
      request(
        {
          host: '127.0.0.1',
          port: gatewayPort,
          path: `http://127.0.0.1:${originPort}/`,
          headers: { 'proxy-authorization': auth('ci', 'not-the-password') },
        },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      ).end();
    });
    expect(wrong).toBe(407);
    expect(proxies.map((p) => p.connections)).toEqual(before);
    expect(log.filter((e) => e.outcome === 'refused' && e.status === 407)).toHaveLength(3);
  });

  it("forwards plain HTTP and CONNECT through a member with the member's credentials; the log has no query string or secret", async () => {
    const plain = await get('/page?token=s3cret', 'ci');
    expect(plain).toEqual({ status: 200, body: 'hello /page?token=s3cret' });
    const t = await tunnel('ci');
    expect(t.head).toMatch(/^HTTP\/1\.1 200/);
    expect(t.body).toBe('hello /t');
    const entries = log.slice(-2);
    expect(entries.map((e) => [e.method, e.outcome, e.client, e.tries])).toEqual([
      ['GET', 'ok', 'ci', 1],
      ['CONNECT', 'ok', 'ci', 1],
    ]);
    expect(entries[0]!.target).toBe(`http://127.0.0.1:${originPort}/page`);
    expect(entries[1]!.target).toBe(`127.0.0.1:${originPort}`);
    expect(entries[1]!.bytesIn).toBeGreaterThan(0);
    expect(entries[1]!.bytesOut).toBeGreaterThan(0);
    const text = JSON.stringify(log);
    for (const secret of [CLIENT.password, 'member-pass-0', 'member-pass-1', 'member-pass-2', 's3cret'])
      expect(text).not.toContain(secret);
  });

  it('spreads sequential requests evenly over the members, and keeps a session on one', async () => {
    const before = relayedBy();
    for (let i = 0; i < 30; i++) expect((await get(`/n${i}`, 'ci')).status).toBe(200);
    expect(relayedBy().map((n, i) => n - before[i]!)).toEqual([10, 10, 10]);
    const mid = relayedBy();
    for (let i = 0; i < 12; i++) expect((await get(`/s${i}`, 'ci-session-abc')).status).toBe(200);
    expect(
      relayedBy()
        .map((n, i) => n - mid[i]!)
        .sort(),
    ).toEqual([0, 0, 12]);
  });

  it('only uses members with the labels and host asked for', async () => {
    const before = relayedBy();
    for (let i = 0; i < 6; i++) expect((await get(`/l${i}`, 'ci-label-team=web')).status).toBe(200);
    expect(relayedBy().map((n, i) => n - before[i]!)).toEqual([3, 0, 3]);
    expect((await get('/h', 'ci-host-edge-c')).status).toBe(502);
  });

  it('replaces a member that cannot be reached within the request; a member that refuses is the answer', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const saved = members;
    members = [member(9, proxies[0]!, { key: 'edge-a/ep-dead', name: 'dead', port: deadPort }), ...saved.slice(1)];
    try {
      for (let i = 0; i < 4; i++) expect((await get(`/f${i}`, 'ci')).status).toBe(200);
      const tries = log.slice(-4).map((e) => e.tries);
      expect(tries.some((n) => n === 2)).toBe(true);
      // The entry says what happened first: the member that could not be reached, and why.
      expect(log.slice(-4).find((e) => e.tries === 2)?.reason).toMatch(/^dead: /);
      expect(log.slice(-4).every((e) => e.outcome === 'ok' && e.member !== 'dead')).toBe(true);
      expect(gateway.counters.snapshot().members['edge-a/ep-dead']?.failures).toBeGreaterThan(0);

      members = [saved[0]!];
      proxies[0]!.refuseWith = 403;
      const refused = await tunnel('ci');
      expect(refused.head).toMatch(/^HTTP\/1\.1 403/);
      expect(log.at(-1)).toMatchObject({ outcome: 'no-member', status: 403, tries: 1 });
    } finally {
      proxies[0]!.refuseWith = undefined;
      members = saved;
    }
  });

  it('sends a body-less request again through another member when one closes without answering; a request with a body is never sent twice', async () => {
    // A member whose proxy is going away: it takes the connection and closes it unanswered.
    let seen = 0;
    const mute = createNetServer((s) => {
      seen++;
      s.once('data', () => s.destroy());
    });
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    const mutePort = (mute.address() as AddressInfo).port;
    const saved = members;
    const muted = member(8, proxies[0]!, { key: 'edge-a/ep-mute', name: 'mute', port: mutePort });
    try {
      members = [muted, saved[1]!];
      for (let i = 0; i < 2; i++) expect(await get(`/g${i}`, 'ci')).toEqual({ status: 200, body: `hello /g${i}` });
      expect(seen).toBe(1);
      expect(log.slice(-2).map((e) => [e.outcome, e.member])).toEqual([
        ['ok', 'm1'],
        ['ok', 'm1'],
      ]);
      expect(log.slice(-2).some((e) => e.tries === 2)).toBe(true);

      members = [muted];
      const posted = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const r = request(
          {
            host: '127.0.0.1',
            port: gatewayPort,
            method: 'POST',
            path: `http://127.0.0.1:${originPort}/p`,
            headers: { 'proxy-authorization': auth('ci'), 'content-length': 5 },
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        r.on('error', reject);
        r.end('hello');
      });
      expect(posted.status).toBe(502);
      expect(seen).toBe(2);
      expect(log.at(-1)).toMatchObject({ outcome: 'failed', member: 'mute', tries: 1 });
    } finally {
      members = saved;
      await new Promise<void>((r) => mute.close(() => r()));
    }
  });

  it('refuses to listen outside loopback without a client', async () => {
    const open = new GatewayServer({ members: () => [], clients: async () => [] });
    await expect(open.listen(0, '0.0.0.0')).rejects.toThrow(/only with client credentials/);
  });

  it('takes SOCKS5 clients with the same credentials, grammar, members and log; refuses a wrong password', async () => {
    const viaSocks = async (userId: string, password = CLIENT.password) => {
      const { socket } = await SocksClient.createConnection({
        proxy: { host: '127.0.0.1', port: socksPort, type: 5, userId, password },
        command: 'connect',
        destination: { host: '127.0.0.1', port: originPort },
        timeout: 5_000,
      });
      socket.write('GET /socks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      let text = '';
      for await (const chunk of socket) text += String(chunk);
      return text.split('\r\n\r\n').at(-1);
    };
    const before = relayedBy();
    expect(await viaSocks('ci-label-team=db')).toBe('hello /socks');
    expect(relayedBy().map((n, i) => n - before[i]!)).toEqual([0, 1, 0]);
    expect(log.at(-1)).toMatchObject({ method: 'SOCKS5', client: 'ci', member: 'm1', outcome: 'ok' });
    await expect(viaSocks('ci', 'wrong-password-1')).rejects.toThrow(/Authentication failed|closed/i);
    expect(log.at(-1)).toMatchObject({
      method: 'SOCKS5',
      outcome: 'refused',
      reason: 'unknown gateway client or wrong password',
    });
    await expect(viaSocks('ci-host-edge-c')).rejects.toThrow();
    expect(log.at(-1)).toMatchObject({ outcome: 'no-member', reason: 'no proxy is on host edge-c' });
  });
});
