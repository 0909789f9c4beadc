/**
 * The `gateway` area (issue 40): the Gateway view's channels over the gateway the app runs
 * (services/gateway/app-gateway.ts). Settings go to settings.json's `gateway` section through
 * the one atomic settings update (every other key kept), then the gateway is made so.
 */
import { type GatewayClient, GatewaySettingsSchema } from '../../../shared/gateway.js';
import {
  FIRST_GATEWAY_CLIENT,
  GatewayClientSettingsError,
  buildGatewayClientSettings,
  gatewayEndpoint,
} from '../../../shared/gateway-client-settings.js';
import type { AreaService, ChannelInput, ChannelOutput } from '../../../shared/ipc.js';
import { formatProxyUrl } from '../../../shared/proxy-url.js';
import { accessLogPath } from '../gateway/access-log.js';
import { recentAccessEntries } from '../gateway/access-log-reader.js';
import type { AppGateway } from '../gateway/app-gateway.js';
import { updateSettingsFile } from '../settings/settings-file.js';

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
    const client = await this.client(gateway, input.client);
    const at = gatewayEndpoint(gateway.status(), input.socks ?? false);
    return {
      client: client.name,
      url: at.ok
        ? formatProxyUrl(
            at.address,
            at.port,
            { username: client.name, password: client.password },
            input.socks ? 'socks5' : 'http',
          )
        : null,
    };
  }

  /** The gateway's client settings (shared/gateway-client-settings.ts, as `egress-desk gateway client-settings`). */
  async clientSettings(
    input: ChannelInput<'gateway:clientSettings'>,
  ): Promise<ChannelOutput<'gateway:clientSettings'>> {
    const gateway = this.running();
    const client = await this.client(gateway, input.client);
    const at = gatewayEndpoint(gateway.status(), input.socks ?? false);
    if (!at.ok) throw new GatewayClientSettingsError(at.reason);
    const { format, ...request } = input;
    return buildGatewayClientSettings(format, { ...request, client, address: at.address, port: at.port }).file;
  }

  /** The client named, or the first one: made when none exists (as `egress-desk gateway` does). */
  private async client(gateway: AppGateway, name: string | undefined): Promise<GatewayClient> {
    let clients = await gateway.clients.list();
    if (!clients.length) {
      await gateway.clients.add({ name: FIRST_GATEWAY_CLIENT });
      clients = await gateway.clients.list();
    }
    const client = name ? clients.find((c) => c.name === name) : clients[0];
    if (!client) throw new Error(`no gateway client is called "${name}"`);
    return client;
  }

  private running(): AppGateway {
    if (!this.gateway) throw new Error('this front end runs no gateway: use egress-desk gateway');
    return this.gateway;
  }
}
