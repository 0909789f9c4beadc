/**
 * `gateway:clientSettings` and `gateway:url` as the app answers them
 * (electron/services/app/gateway-area.ts, issue 40), over a real AppGateway: the first
 * client is made on demand; the settings point at the running listener's port (else the
 * settings' own); credentials only when asked; a user name the gateway would refuse, an
 * unknown client or a missing SOCKS5 listener are refused with the reason; and the answer
 * is what the contract says.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayArea } from '../../../electron/services/app/gateway-area.js';
import { AppGateway } from '../../../electron/services/gateway/app-gateway.js';
import { type GatewaySettings, GatewaySettingsSchema } from '../../../shared/gateway.js';
import { channels } from '../../../shared/ipc.js';
import { tempDir } from '../../support/temp-dir.js';

async function setup(settings: Partial<GatewaySettings>) {
  const dataDir = join(tempDir('egress-gw-area-'), 'data');
  let current = GatewaySettingsSchema.parse(settings);
  const gateway = new AppGateway({
    dataDir,
    fleet: () => ({ proxies: () => [], health: () => ({ at: 0, proxies: [] }), credentials: async () => undefined }),
    settings: async () => current,
    emit: () => undefined,
    updateMs: 0,
  });
  const area = new GatewayArea(gateway, undefined, dataDir);
  // As the app does at start: the settings are read (and the gateway started if they say so).
  await gateway.apply();
  return { gateway, area, set: (s: Partial<GatewaySettings>) => (current = { ...current, ...s }) };
}

const contract = channels['gateway:clientSettings'];

describe('gateway:clientSettings', () => {
  it('makes the first client on demand and points at the running listener, credentials only when asked', async () => {
    const { gateway, area, set } = await setup({ port: 3999, socksPort: null });
    try {
      // Off: the settings' port.
      const off = await area.clientSettings({ format: 'urls' });
      expect(off).toEqual({ text: 'http://127.0.0.1:3999\n', fileName: 'gateway.txt', mediaType: 'text/plain' });
      expect((await gateway.clients.list()).map((c) => c.name)).toEqual(['desk']);
      const [desk] = await gateway.clients.list();

      set({ enabled: true, port: 0 });
      const { port } = await gateway.apply();
      const env = await area.clientSettings(
        contract.input.parse({ format: 'env', session: 's1', labels: { team: 'web' }, withCredentials: true }),
      );
      expect(contract.output.parse(env)).toEqual(env);
      expect(env.fileName).toBe('gateway.env.sh');
      expect(env.text).toContain(
        `export HTTP_PROXY='http://desk-session-s1-label-team%3Dweb:${desk!.password}@127.0.0.1:${port}'`,
      );
      const pac = await area.clientSettings({ format: 'pac', withCredentials: true });
      expect(pac.text).toContain(`return "PROXY 127.0.0.1:${port}";`);
      expect(pac.text).not.toContain(desk!.password);
      const { url } = await area.url({});
      expect(url).toBe(`http://desk:${desk!.password}@127.0.0.1:${port}`);
    } finally {
      await gateway.close();
    }
  });

  it('refuses a name the gateway would refuse, an unknown client and a missing SOCKS5 listener, saying why', async () => {
    const { gateway, area } = await setup({ socksPort: null });
    try {
      await expect(area.clientSettings({ format: 'env', session: 'a-b' })).rejects.toMatchObject({
        name: 'GatewayClientSettingsError',
        message: expect.stringContaining('a session ID must be 1-64 letters') as string,
      });
      await expect(area.clientSettings({ format: 'env', host: 'Edge' })).rejects.toThrow(/a host must be/);
      await expect(area.clientSettings({ format: 'env', client: 'nobody' })).rejects.toThrow(
        'no gateway client is called "nobody"',
      );
      await expect(area.clientSettings({ format: 'env', socks: true })).rejects.toThrow(/no SOCKS5 listener/);
      expect(await area.url({ socks: true })).toEqual({ client: 'desk', url: null });
    } finally {
      await gateway.close();
    }
  });

  it('another client by name', async () => {
    const { gateway, area } = await setup({});
    try {
      const ci = await gateway.clients.add({ name: 'ci' });
      await gateway.clients.add({ name: 'web' });
      const file = await area.clientSettings({ format: 'curl', client: 'web', socks: true, host: 'edge-a' });
      expect(file.text).toContain('socks5-hostname = "127.0.0.1:3131"');
      expect(file.text).not.toContain('proxy-user');
      const withCi = await area.clientSettings({ format: 'curl', withCredentials: true });
      expect(withCi.text).toContain(`proxy-user = "ci:${ci.password}"`);
    } finally {
      await gateway.close();
    }
  });
});
