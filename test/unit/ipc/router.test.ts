import { describe, expect, it, vi } from 'vitest';
import { createRouter, type Handlers } from '../../../electron/ipc/router.js';
import { channels } from '../../../shared/ipc.js';

function handlers(): Handlers {
  return {
    'app:info': vi.fn(() => ({ name: 'Egress Desk', version: '1.0.0', frontEnd: 'serve' as const, dataDir: '/d' })),
    'config:get': vi.fn(async () => ({ path: '/d/config.yaml', created: false })),
  };
}

describe('router', () => {
  it('routes a valid call and validates its output', async () => {
    const h = handlers();
    const router = createRouter(h);
    expect(await router.invoke('app:info', undefined)).toEqual({ ok: true, value: { name: 'Egress Desk', version: '1.0.0', frontEnd: 'serve', dataDir: '/d' } });
    expect(h['app:info']).toHaveBeenCalledTimes(1);
  });

  it.each(Object.keys(channels))('%s rejects malformed input without calling the service', async (name) => {
    const h = handlers();
    const router = createRouter(h);
    for (const bad of [{ x: 1 }, 'text', 42, ['a'], null]) {
      const result = await router.invoke(name, bad);
      expect(result).toMatchObject({ ok: false, error: { name: 'ValidationError' } });
    }
    expect(h[name as keyof Handlers]).not.toHaveBeenCalled();
  });

  it('rejects unknown channels, including inherited property names', async () => {
    const router = createRouter(handlers());
    for (const name of ['nope:x', 'toString', '__proto__', 42, undefined]) {
      expect(await router.invoke(name, undefined)).toMatchObject({ ok: false, error: { name: 'ValidationError', message: expect.stringMatching(/unknown channel/) } });
    }
  });

  it('wraps service errors in the envelope with their name and message', async () => {
    const h = handlers();
    h['config:get'] = async () => {
      throw Object.assign(new Error('disk on fire'), { name: 'DiskError' });
    };
    expect(await createRouter(h).invoke('config:get', undefined)).toEqual({ ok: false, error: { name: 'DiskError', message: 'disk on fire' } });
  });

  it('refuses output outside the contract', async () => {
    const h = handlers();
    h['app:info'] = () => ({ name: 1 }) as never;
    expect(await createRouter(h).invoke('app:info', undefined)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/outside its contract/) } });
  });
});
