/** The router's handlers are derived from the areas' methods: every channel reaches its method, on its object. */
import { describe, expect, it } from 'vitest';
import { handlersFrom } from '../../../electron/ipc/handlers.js';
import { type ChannelName, type ContractService, channels, splitChannel } from '../../../shared/ipc.js';

/** A service whose every method answers with its own channel name, read through `this` (as a class's would). */
function echoService(): ContractService {
  const service: Record<string, Record<string, unknown>> = {};
  for (const name of Object.keys(channels) as ChannelName[]) {
    const [area, method] = splitChannel(name);
    const target = (service[area] ??= { area });
    target[method] = function (this: { area: string }, input: unknown) {
      return { channel: `${this.area}:${method}`, input };
    };
  }
  return service as unknown as ContractService;
}

describe('handlersFrom', () => {
  it('binds every channel of the contract to the method of the same name in its area, called on the area', async () => {
    const handlers = handlersFrom(echoService());
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(channels).sort());
    for (const name of Object.keys(channels) as ChannelName[]) {
      const handler = handlers[name] as (input: unknown) => unknown;
      expect(await handler({ probe: name })).toEqual({ channel: name, input: { probe: name } });
    }
  });

  it('refuses a service without a method for some channel, naming it', () => {
    const service = echoService() as unknown as Record<string, Record<string, unknown>>;
    delete service.hosts!.trust;
    expect(() => handlersFrom(service as unknown as ContractService)).toThrow(
      'no method trust in the hosts service for hosts:trust',
    );
  });
});
