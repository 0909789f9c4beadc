/** proxies:place: where a launch would go, and why, over the real backend on two in-memory hosts; nothing is created. */
import { afterEach, describe, expect, it } from 'vitest';
import { fixture } from '../provider/provider-fixture.js';
import { type AppFixture, appFixture, fakeHostDirectory } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

describe('proxies:place', () => {
  it('names the host with the most free memory and says why, creating nothing', async () => {
    app = appFixture();
    const before = [...app.fx.hosts.values()].map((h) => h.domains.size);
    await expect(app.call('proxies:place', {})).resolves.toEqual({
      host: 'edge-b',
      reason: 'edge-b: most free memory (12.3 GiB) with room in pool default',
    });
    expect([...app.fx.hosts.values()].map((h) => h.domains.size)).toEqual(before);
  });

  it('takes the host asked for, and refuses one the config does not have', async () => {
    app = appFixture();
    await expect(app.call('proxies:place', { host: 'edge-a' })).resolves.toEqual({
      host: 'edge-a',
      reason: 'edge-a: asked for',
    });
    await expect(app.call('proxies:place', { host: 'nowhere' })).rejects.toThrow(
      'no host named "nowhere" (known: edge-a, edge-b)',
    );
  });

  it('says why no host can take a machine type bigger than every host', async () => {
    app = appFixture();
    app.fx.hosts.get('edge-a')!.freeMemoryBytes = 256 * 1024 ** 2;
    app.fx.hosts.get('edge-b')!.freeMemoryBytes = 256 * 1024 ** 2;
    const err = (await app.call('proxies:place', {}).catch((e: unknown) => e)) as Error;
    expect(err.name).toBe('PlacementError');
    expect(err.message).toBe(
      'no host can take the proxy: edge-a: 256 MiB of memory free, the machine type needs 512 MiB; edge-b: 256 MiB of memory free, the machine type needs 512 MiB',
    );
  });

  it('refuses an unknown machine type by name', async () => {
    app = appFixture();
    await expect(app.call('proxies:place', { machineType: 'huge' })).rejects.toThrow(
      'no machine type named "huge" (known: small)',
    );
  });
});

describe('proxies:place asks only connected hosts', () => {
  it('leaves out a host that is not connected (a preview never starts a connection), and says when none is', async () => {
    const fx = fixture();
    const hosts = fakeHostDirectory(fx);
    let down = ['edge-b'];
    const status = (name: string) => ({
      ...hosts.status(name),
      ...(down.includes(name) ? { state: 'error' as const, message: 'connection refused' } : {}),
    });
    app = appFixture({ fx, hosts: { ...hosts, status, statuses: () => [...fx.hosts.keys()].map(status) } });
    // edge-b has more free memory, but it is not connected.
    await expect(app.call('proxies:place', {})).resolves.toEqual({
      host: 'edge-a',
      reason: 'edge-a: most free memory (4.0 GiB) with room in pool default',
    });
    down = ['edge-a', 'edge-b'];
    await expect(app.call('proxies:place', {})).rejects.toThrow('no host is connected yet (see Hosts)');
  });
});
