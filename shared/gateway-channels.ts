/**
 * The gateway's part of the contract (shared/ipc.ts spreads it in; issue 40): the Gateway
 * view's channels and the events it follows.
 */
import { z } from 'zod';
import { ClientSettingsFileSchema } from './client-settings.js';
import { GatewayClientSettingsInputSchema } from './gateway-client-settings.js';
import {
  GatewayAccessEntrySchema,
  GatewayClientNameSchema,
  GatewaySettingsSchema,
  GatewayStatusSchema,
} from './gateway.js';
import { channel } from './ipc-channel.js';

export const gatewayChannels = {
  /** The gateway the app runs (shared/gateway.ts): its settings, where it listens, its members and figures. */
  'gateway:status': channel(z.undefined(), GatewayStatusSchema),
  /**
   * Changes the gateway's settings (settings.json `gateway`; fields left out are kept) and
   * makes it so: started, moved or stopped. A port in use is the status' `error`, not a refusal.
   */
  'gateway:set': channel(GatewaySettingsSchema.partial().strict(), GatewayStatusSchema),
  /** The newest requests of the access log, oldest first (at most `limit`, default 200). */
  'gateway:requests': channel(
    z.strictObject({ limit: z.int().min(1).max(5000).optional() }),
    z.array(GatewayAccessEntrySchema),
  ),
  /** A client's gateway URL, password included: a secret. The first client is made when none exists. */
  'gateway:url': channel(
    z.strictObject({ client: GatewayClientNameSchema.optional(), socks: z.boolean().optional() }),
    z.object({ url: z.string().nullable(), client: z.string() }),
  ),
  /**
   * Client settings for the gateway (shared/gateway-client-settings.ts): the file of a format
   * for its address with a client's user name (the first client, made when none exists, unless
   * one is named). A user name the gateway would refuse is refused with its reason. With
   * `withCredentials` the answer holds the client's password: a secret.
   */
  'gateway:clientSettings': channel(GatewayClientSettingsInputSchema, ClientSettingsFileSchema),
} as const;

export const gatewayEvents = {
  /** The gateway's status, every 2 s while it runs and on each change. */
  'gateway:update': GatewayStatusSchema,
  /** Requests the gateway ended since the last of these (the Requests table follows it). */
  'gateway:requests': z.array(GatewayAccessEntrySchema),
} as const;
