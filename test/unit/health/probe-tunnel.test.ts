/**
 * Probing from the host: the probe's connection is the injected tunnel (as the SSH host's
 * direct-tcpip channel gives it), not a connect from here, and the health monitor asks for
 * that host's tunnel to the guest's address and port. The address given is a closed
 * loopback port, so a probe that ignored the tunnel would fail, never reach elsewhere.
 */
import { type Server, createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetHealthMonitor } from '../../../electron/services/app/fleet-health.js';
import { probeProxy } from '../../../electron/services/health/proxy-probe.js';
import type { ProxyRecord } from '../../../electron/services/provider/kvm/context.js';
import { ManualClock } from '../../support/manual-clock.js';
import { proxyRecord } from '../renderer/fake-bridge.js';

let proxy: Server;
let proxyPort = 0;
let closedPort = 0;

beforeAll(async () => {
  proxy = createServer((req, res) =>
    res
      .writeHead(req.url === 'http://echo.invalid/' ? 200 : 400)
      .end(req.url === 'http://echo.invalid/' ? '203.0.113.77' : 'Bad Request'),
  );
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyPort = (proxy.address() as AddressInfo).port;
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
});

const tunnelToProxy = () =>
  new Promise<ReturnType<typeof connect>>((resolve, reject) => {
    const s = connect(proxyPort, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

describe('health probe through the host', () => {
  it('the request goes over the tunnel; a tunnel that cannot open fails saying it was through the host', async () => {
    expect(await probeProxy({ address: '127.0.0.1', port: closedPort }, { timeoutMs: 2000 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(
      await probeProxy(
        { address: '127.0.0.1', port: closedPort, tunnel: tunnelToProxy },
        { url: 'http://echo.invalid/', echo: true, timeoutMs: 2000 },
      ),
    ).toMatchObject({ ok: true, status: 200, exitAddress: '203.0.113.77' });
    const refused = await probeProxy(
      {
        address: '127.0.0.1',
        port: closedPort,
        tunnel: () => Promise.reject(new Error('administratively prohibited')),
      },
      { timeoutMs: 2000 },
    );
    expect(refused).toMatchObject({ ok: false, error: 'through the host: administratively prohibited' });
  });

  it("the monitor opens each SSH host's tunnel to the guest's address and port, and connects from here for a host without one", async () => {
    const asked: string[] = [];
    const rec = (name: string, host: string) =>
      ({
        ...proxyRecord({ name, host, state: 'running' }),
        port: closedPort,
        addresses: [{ address: '127.0.0.1', prefix: 8, family: 'ipv4', source: 'lease' }],
      }) as ProxyRecord;
    const monitor = new FleetHealthMonitor({
      proxies: () => [rec('far', 'edge-ssh'), rec('near', 'local')],
      connected: () => new Set(['edge-ssh', 'local']),
      credentials: async () => undefined,
      settings: async () => ({}),
      tunnelFor: (host) =>
        host === 'edge-ssh'
          ? (address, port) => {
              asked.push(`${host} ${address}:${port}`);
              return tunnelToProxy();
            }
          : undefined,
      clock: new ManualClock(),
    });
    const h = await monitor.check();
    expect(asked).toEqual([`edge-ssh 127.0.0.1:${closedPort}`]);
    expect(h.proxies.find((p) => p.name === 'far')).toMatchObject({ state: 'healthy', status: 400 });
    expect(h.proxies.find((p) => p.name === 'near')).toMatchObject({
      state: 'failing',
      lastError: expect.stringMatching(/ECONNREFUSED/),
    });
  });
});
