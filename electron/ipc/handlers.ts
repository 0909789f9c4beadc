/**
 * Binds each channel of the contract to the method that answers it. The services are
 * grouped by the contract's areas, each method named after its channel (`hosts:trust` →
 * `hosts.trust(input)`), so the map is derived, not written out: a typed version of VS
 * Code's `ProxyChannel.fromService`. The types make a missing or mistyped method a
 * compile error; the check below makes it a start-up error too.
 */
import {
  type AppInfo,
  type AreaName,
  type ChannelName,
  type ContractService,
  channels,
  splitChannel,
} from '../../shared/ipc.js';
import type { AppService } from '../services/app/app-service.js';
import type { Handlers } from './router.js';

export interface Services {
  info: AppInfo;
  app: AppService;
}

/** The router's handlers for a service that answers every area of the contract. */
export function handlersFrom(service: ContractService): Handlers {
  const handlers: Partial<Record<ChannelName, (input: unknown) => unknown>> = {};
  for (const name of Object.keys(channels) as ChannelName[]) {
    const [area, method] = splitChannel(name);
    const target = service[area as AreaName] as unknown as Record<string, unknown>;
    const fn = target[method];
    if (typeof fn !== 'function') throw new Error(`no method ${method} in the ${area} service for ${name}`);
    // Called on its object: the areas are classes whose methods use `this`.
    handlers[name] = (input) => (fn as (input: unknown) => unknown).call(target, input);
  }
  return handlers as Handlers;
}

export function createHandlers(services: Services): Handlers {
  return handlersFrom({ app: { info: () => services.info }, ...services.app.areas });
}
