import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createRouter, type Handlers } from '../../../electron/ipc/router.js';
import { type ChannelName, channels } from '../../../shared/ipc.js';

const names = Object.keys(channels) as ChannelName[];

/** Every handler a spy that must not be reached (except where a test gives it an answer). */
function handlers(): Handlers {
  const h = Object.fromEntries(
    names.map((n) => [n, vi.fn(() => Promise.reject(new Error(`${n} should not be called`)))]),
  ) as unknown as Handlers;
  h['app:info'] = vi.fn(() => ({ name: 'Egress Desk', version: '1.0.0', frontEnd: 'serve' as const, dataDir: '/d' }));
  h['config:get'] = vi.fn(async () => ({ path: '/d/config.yaml', created: false }));
  return h;
}

/** Hand-written bad inputs per channel, beyond the generated ones: the near misses. */
const nearMisses: Partial<Record<ChannelName, unknown[]>> = {
  'proxies:delete': [
    { name: 'p1' },
    { name: 'p1', confirm: false },
    { name: 'p1', confirm: 'yes' },
    { name: 'P1', confirm: true },
    { name: 'p1', confirm: true, force: 'yes' },
  ],
  'proxies:stop': [
    { name: 'p1', force: 1 },
    { name: 'p1', timeout: 5 },
  ],
  'proxies:label': [
    { name: 'p1', set: { Env: 'prod' } },
    { name: 'p1', set: { env: 'a b' } },
    { name: 'p1', set: { env: '<x/>' } },
    { name: 'p1', remove: ['A'] },
    { name: 'p1', set: JSON.parse('{"__proto__":"x"}') as unknown },
  ],
  'proxies:launch': [
    { name: 'Bad Name' },
    { name: 'p1', port: 0 },
    { name: 'p1', port: 70000 },
    { name: 'p1', allow: [] },
    { name: 'p1', allow: ['nope'] },
    { name: 'p1', extra: 1 },
    { name: 'p1', credentials: { username: 'a', password: 'has space' } },
  ],
  'proxies:start': [{ name: '' }, { name: '-x' }, { name: 'a'.repeat(64) }],
  'proxies:url': [{}, { name: 1 }],
  'config:import': [
    { text: 'type: kvm' },
    { text: 'type: kvm', confirm: false },
    { text: '', confirm: true },
    { text: 'x'.repeat(1024 * 1024 + 1), confirm: true },
  ],
  'config:previewImport': [{ text: '' }, { text: 'a', syntax: 'toml' }],
  'config:export': [{}, { format: 'xml' }, { format: 'pac', withCredentials: 'yes' }],
  'hosts:trust': [
    { host: 'edge-a' },
    { host: 'edge-a', fingerprint: 'MD5:aa:bb' },
    { host: '', fingerprint: `SHA256:${'A'.repeat(43)}` },
  ],
  'tasks:cancel': [{}, { id: '' }, { id: 7 }],
  'images:pull': [{}, { name: '' }],
  'console:open': [{}, { name: 'P1' }, { name: 'p1', force: 'yes' }, { name: 'p1', extra: 1 }],
  'console:write': [
    { session: 'not-a-session', data: 'x' },
    { session: '0f6c2d4e-8a1b-4c3d-9e5f-112233445566', data: '' },
    { session: '0f6c2d4e-8a1b-4c3d-9e5f-112233445566', data: 'x'.repeat(64 * 1024 + 1) },
    { session: '0f6c2d4e-8a1b-4c3d-9e5f-112233445566', data: 'lone \uD800 surrogate' },
    { session: '0f6c2d4e-8a1b-4c3d-9e5f-112233445566', data: 42 },
    { session: '0f6c2d4e-8a1b-4c3d-9e5f-112233445566', data: 'x', extra: true },
  ],
  'console:close': [{}, { session: '' }, { session: 'F6C2D4E-8A1B-4C3D-9E5F-112233445566' }],
  'machineTypes:save': [
    { name: 'a', vcpus: 0, memoryMiB: 128, diskGiB: 1 },
    { name: 'A', vcpus: 1, memoryMiB: 128, diskGiB: 1 },
    { name: 'a', vcpus: 1, memoryMiB: 128 },
    { name: 'a', vcpus: 1.5, memoryMiB: 128, diskGiB: 1 },
  ],
  'machineTypes:remove': [{ name: 'a' }, { name: 'a', confirm: false }],
  'images:save': [
    { name: 'a', url: 'ftp://x/y', sha256: 'a'.repeat(64), format: 'qcow2' },
    { name: 'a', url: 'file:///x', sha256: 'A'.repeat(64), format: 'qcow2' },
    { name: 'a', url: 'file:///x', sha256: 'a'.repeat(64), format: 'vmdk' },
  ],
  'images:remove': [{ name: 'a', confirm: 'yes' }],
  'defaults:set': [{}, { machineType: '' }],
};

describe('router', () => {
  it('routes a valid call and validates its output', async () => {
    const h = handlers();
    const router = createRouter(h);
    expect(await router.invoke('app:info', undefined)).toEqual({
      ok: true,
      value: { name: 'Egress Desk', version: '1.0.0', frontEnd: 'serve', dataDir: '/d' },
    });
    expect(h['app:info']).toHaveBeenCalledTimes(1);
  });

  it.each(names)('%s rejects malformed input without calling the service', async (name) => {
    const h = handlers();
    const router = createRouter(h);
    const schema = channels[name].input;
    for (const bad of [{ x: 1 }, 'text', 42, ['a'], null, ...(nearMisses[name] ?? [])]) {
      expect(schema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
      const result = await router.invoke(name, bad);
      expect(result).toMatchObject({ ok: false, error: { name: 'ValidationError', issues: expect.any(Array) } });
    }
    // Generated: any JSON value the schema refuses is refused by the router, before the service.
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue().filter((v) => !schema.safeParse(v).success),
        async (bad) => {
          const result = await router.invoke(name, bad);
          return result.ok === false && result.error.name === 'ValidationError';
        },
      ),
      { numRuns: 60 },
    );
    expect(h[name]).not.toHaveBeenCalled();
  });

  it('a delete without confirm is a ValidationError that names the field', async () => {
    const h = handlers();
    const result = await createRouter(h).invoke('proxies:delete', { name: 'p1' });
    expect(result).toMatchObject({
      ok: false,
      error: {
        name: 'ValidationError',
        issues: [{ path: 'confirm', message: expect.stringMatching(/confirm: true/) }],
      },
    });
    expect(h['proxies:delete']).not.toHaveBeenCalled();
  });

  it('rejects unknown channels, including inherited property names', async () => {
    const router = createRouter(handlers());
    for (const name of ['nope:x', 'toString', '__proto__', 42, undefined]) {
      expect(await router.invoke(name, undefined)).toMatchObject({
        ok: false,
        error: { name: 'ValidationError', message: expect.stringMatching(/unknown channel/) },
      });
    }
  });

  it('wraps service errors in the envelope with their name and message (and issues)', async () => {
    const h = handlers();
    h['config:get'] = async () => {
      throw Object.assign(new Error('disk on fire'), { name: 'DiskError' });
    };
    h['config:import'] = async () => {
      throw Object.assign(new Error('bad config'), {
        name: 'ConfigInvalidError',
        issues: [{ path: 'kvm.hosts', message: 'required' }],
      });
    };
    const router = createRouter(h);
    expect(await router.invoke('config:get', undefined)).toEqual({
      ok: false,
      error: { name: 'DiskError', message: 'disk on fire' },
    });
    expect(await router.invoke('config:import', { text: 'x', confirm: true })).toEqual({
      ok: false,
      error: {
        name: 'ConfigInvalidError',
        message: 'bad config',
        issues: [{ path: 'kvm.hosts', message: 'required' }],
      },
    });
  });

  it('refuses output outside the contract', async () => {
    const h = handlers();
    h['app:info'] = () => ({ name: 1 }) as never;
    h['proxies:launch'] = async () => ({ taskId: 5 }) as never;
    const router = createRouter(h);
    expect(await router.invoke('app:info', undefined)).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/outside its contract/) },
    });
    expect(await router.invoke('proxies:launch', { name: 'p1' })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/outside its contract/) },
    });
  });

  it('passes the backend hooks through', async () => {
    const close = vi.fn(async () => undefined);
    const subscribe = vi.fn(() => () => undefined);
    const router = createRouter(handlers(), { subscribe, close });
    router.subscribe?.(() => undefined);
    await router.close?.();
    expect(subscribe).toHaveBeenCalledTimes(1);
    expect(close).toHaveBeenCalledTimes(1);
  });
});
