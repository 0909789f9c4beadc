/**
 * The gateway as the app runs it (electron/services/gateway/app-gateway.ts, issue 40): the
 * settings start it, move it and stop it; its status lists every proxy as a member with
 * why one is not used, each one's share of the requests, totals and rates; a port in use
 * is an error in the status, not a crash.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppGateway, type GatewayFleet } from '../../../electron/services/gateway/app-gateway.js';
import type { ProxyRecord } from '../../../electron/services/provider/kvm/context.js';
import { type GatewaySettings, GatewaySettingsSchema } from '../../../shared/gateway.js';
import type { GatewayStatus } from '../../../shared/gateway.js';
import { type LittleProxy, getThroughProxy, littleProxy } from '../../support/little-proxy.js';
import { tempDir } from '../../support/temp-dir.js';
import { proxyRecord } from '../renderer/fake-bridge.js';

let member: LittleProxy;
let origin: ReturnType<typeof createServer>;
let originPort: number;

beforeAll(async () => {
  member = await littleProxy('egress', 'member-pass-1');
  origin = createServer((req, res) => res.end(`hi ${req.url}`));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originPort = (origin.address() as AddressInfo).port;
});
afterAll(async () => {
  await member.close();
  await new Promise<void>((r) => origin.close(() => r()));
});

const record = (name: string, over: Partial<ProxyRecord> = {}): ProxyRecord =>
  ({
    ...proxyRecord({ name }),
    port: member.port,
    addresses: [{ address: '127.0.0.1', prefix: 8, family: 'ipv4', source: 'lease' }],
    ...over,
  }) as ProxyRecord;

function setup(settings: Partial<GatewaySettings>) {
  const dir = tempDir('egress-app-gw-');
  let current = GatewaySettingsSchema.parse({ enabled: true, port: 0, socksPort: 0, ...settings });
  const up = record('up');
  const down = record('down', { state: 'shutoff' });
  const fleet: GatewayFleet = {
    proxies: () => [up, down],
    health: () => ({ at: 1, proxies: [{ host: up.host, domain: up.id, name: up.name, state: 'healthy', since: 0 }] }),
    credentials: async (name) => (name === 'up' ? { username: 'egress', password: 'member-pass-1' } : undefined),
  };
  const emitted: GatewayStatus[] = [];
  const gateway = new AppGateway({
    dataDir: join(dir, 'data'),
    fleet: () => fleet,
    settings: async () => current,
    emit: (s) => emitted.push(s),
    updateMs: 0,
  });
  return { gateway, emitted, set: (s: Partial<GatewaySettings>) => (current = { ...current, ...s }) };
}

describe('the gateway in the app', () => {
  it('starts from the settings, relays, shows shares, totals and why a member is not used, and stops', async () => {
    const { gateway, emitted, set } = setup({});
    try {
      const status = await gateway.apply();
      expect(status.running).toBe(true);
      expect(status.port).toBeGreaterThan(0);
      expect(status.socksPort).toBeGreaterThan(0);
      expect(emitted).toHaveLength(1);
      const client = await gateway.clients.add({ name: 'desk' });
      const got = await getThroughProxy(
        '127.0.0.1',
        status.port!,
        `http://127.0.0.1:${originPort}/x`,
        `desk:${client.password}`,
      );
      expect(got).toEqual({ status: 200, body: 'hi /x' });
      const after = gateway.status();
      expect(after.members.map((m) => [m.name, m.usable, m.reason, m.requests, m.share])).toEqual([
        ['up', true, undefined, 1, 1],
        ['down', false, 'shutoff', 0, 0],
      ]);
      expect(after.totals.requests).toBe(1);
      expect(after.totals.bytesIn).toBeGreaterThan(0);
      set({ enabled: false });
      expect((await gateway.apply()).running).toBe(false);
    } finally {
      await gateway.close();
    }
  });

  it('says in its status that a port is in use, and starts once the settings name a free one', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    const { gateway, set } = setup({ port, socksPort: null });
    try {
      const refused = await gateway.apply();
      expect(refused.running).toBe(false);
      expect(refused.error).toMatch(/is in use/);
      set({ port: 0 });
      const ok = await gateway.apply();
      expect([ok.running, ok.error, ok.socksPort]).toEqual([true, undefined, undefined]);
    } finally {
      await gateway.close();
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });
});
