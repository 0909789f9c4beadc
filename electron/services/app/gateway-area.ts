/**
 * The `gateway` area (issue 40): the Gateway view's channels over the gateway the app runs
 * (services/gateway/app-gateway.ts). Settings go to settings.json's `gateway` section through
 * the one atomic settings update (every other key kept), then the gateway is made so.
 */
import { GatewaySettingsSchema } from '../../../shared/gateway.js';
import type { AreaService, ChannelInput, ChannelOutput } from '../../../shared/ipc.js';
import { formatProxyUrl } from '../../../shared/proxy-url.js';
import { accessLogPath } from '../gateway/access-log.js';
import { recentAccessEntries } from '../gateway/access-log-reader.js';
import type { AppGateway } from '../gateway/app-gateway.js';
import { updateSettingsFile } from '../settings/settings-file.js';

/** The client made when the view asks for a URL and none exists (as `egress-desk gateway` does). */
export const FIRST_GATEWAY_CLIENT = 'desk';

export class GatewayArea implements AreaService<'gateway'> {
  constructor(
    private readonly gateway: AppGateway | undefined,
    private readonly settingsFile: string | undefined,
    private readonly dataDir: string | undefined,
  ) {}

  status(): ChannelOutput<'gateway:status'> {
    return this.running().status();
  }

  async set(input: ChannelInput<'gateway:set'>): Promise<ChannelOutput<'gateway:set'>> {
    const gateway = this.running();
    if (!this.settingsFile) throw new Error('this front end keeps no settings file');
    await updateSettingsFile(this.settingsFile, (s) => ({
      ...s,
      gateway: GatewaySettingsSchema.parse({ ...(s.gateway ?? {}), ...input }),
    }));
    return gateway.apply();
  }

  async requests(input: ChannelInput<'gateway:requests'>): Promise<ChannelOutput<'gateway:requests'>> {
    if (!this.dataDir) return [];
    return recentAccessEntries(accessLogPath(this.dataDir), input.limit ?? 200);
  }

  async url(input: ChannelInput<'gateway:url'>): Promise<ChannelOutput<'gateway:url'>> {
    const gateway = this.running();
    let clients = await gateway.clients.list();
    if (!clients.length) {
      await gateway.clients.add({ name: FIRST_GATEWAY_CLIENT });
      clients = await gateway.clients.list();
    }
    const client = input.client ? clients.find((c) => c.name === input.client) : clients[0];
    if (!client) throw new Error(`no gateway client is called "${input.client}"`);
    const status = gateway.status();
    const port = input.socks ? (status.socksPort ?? status.settings.socksPort) : (status.port ?? status.settings.port);
    const address = status.address && !['0.0.0.0', '::'].includes(status.address) ? status.address : '127.0.0.1';
    return {
      client: client.name,
      url:
        port === null || port === undefined
          ? null
          : formatProxyUrl(
              address,
              port,
              { username: client.name, password: client.password },
              input.socks ? 'socks5' : 'http',
            ),
    };
  }

  private running(): AppGateway {
    if (!this.gateway) throw new Error('this front end runs no gateway: use egress-desk gateway');
    return this.gateway;
  }
}
