/** hosts:add, hosts:update, hosts:remove and hosts:unlock over the real backend (router, app service, config file) on in-memory hosts. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../electron/services/config/document.js';
import type { HostDirectory } from '../../../electron/services/app/fleet-assembly.js';
import type { ProviderConfig } from '../../../shared/config.js';
import type { Task } from '../../../shared/tasks.js';
import { fixture } from '../provider/provider-fixture.js';
import { type AppFixture, appFixture, fakeHostDirectory } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

const saved = () => parseConfigText(readFileSync(app.configFile, 'utf8'), app.configFile) as ProviderConfig;
const hostNames = () => saved().kvm!.hosts.map((h) => h.name);

async function launch(name: string, host: string): Promise<Task> {
  const { taskId } = (await app.call('proxies:launch', { name, host })) as { taskId: string };
  return app.finished(taskId);
}

describe('hosts:add', () => {
  it('adds a host to the config file and answers every host status', async () => {
    app = appFixture();
    const result = (await app.call('hosts:add', {
      host: { name: 'edge-c', address: '127.0.0.1', sshPort: 2222, sshUser: 'root' },
    })) as { path: string; hosts: Array<{ name: string }> };
    expect(result.path).toBe(app.configFile);
    expect(result.hosts.map((h) => h.name)).toEqual(['edge-a', 'edge-b']); // the fake directory's hosts
    expect(saved().kvm!.hosts.at(-1)).toEqual({ name: 'edge-c', address: '127.0.0.1', sshUser: 'root', sshPort: 2222 });
  });

  it('refuses a malformed host at the router, and a duplicate or network+bridge with path-first issues; the file is untouched', async () => {
    app = appFixture();
    const before = readFileSync(app.configFile, 'utf8');
    expect(await app.invoke('hosts:add', { host: { name: 'Bad_Name', address: 'h' } })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError', issues: [expect.objectContaining({ path: 'host.name' })] },
    });
    await expect(app.call('hosts:add', { host: { name: 'edge-b', address: 'h' } })).rejects.toMatchObject({
      name: 'ConfigInvalidError',
      issues: [{ path: 'kvm.hosts[2].name', message: 'duplicate host name "edge-b" (also kvm.hosts[1])' }],
    });
    await expect(
      app.call('hosts:add', { host: { name: 'edge-c', address: 'h', network: 'default', bridge: 'br0' } }),
    ).rejects.toMatchObject({
      issues: [{ path: 'kvm.hosts[2].bridge', message: 'set either network or bridge, not both' }],
    });
    expect(readFileSync(app.configFile, 'utf8')).toBe(before);
  });
});

describe('hosts:update', () => {
  it('changes a host in place, and renames one that has no proxies', async () => {
    app = appFixture();
    await app.call('hosts:update', {
      name: 'edge-b',
      host: { name: 'edge-b', address: 'edge-b2.example', pool: 'fast' },
    });
    expect(saved().kvm!.hosts[1]).toEqual({ name: 'edge-b', address: 'edge-b2.example', pool: 'fast' });
    await app.call('hosts:update', { name: 'edge-b', host: { name: 'edge-z', address: 'edge-b2.example' } });
    expect(hostNames()).toEqual(['edge-a', 'edge-z']);
  });

  it('refuses to rename a host that proxies run on (their metadata names it), and an unknown host', async () => {
    app = appFixture();
    expect((await launch('p1', 'edge-b')).state).toBe('succeeded');
    await expect(
      app.call('hosts:update', { name: 'edge-b', host: { name: 'edge-z', address: 'edge-b.example' } }),
    ).rejects.toMatchObject({
      name: 'HostEditRefusedError',
      message: expect.stringContaining('1 proxy runs on it, and each records the host name edge-b in its metadata'),
    });
    await expect(
      app.call('hosts:update', { name: 'nope', host: { name: 'nope', address: 'h' } }),
    ).rejects.toMatchObject({ name: 'UnknownEntryError' });
    expect(hostNames()).toEqual(['edge-a', 'edge-b']);
  });
});

describe('hosts:remove', () => {
  it('needs confirm: true', async () => {
    app = appFixture();
    expect(await app.invoke('hosts:remove', { name: 'edge-b' })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
    expect(hostNames()).toEqual(['edge-a', 'edge-b']);
  });

  it('removes the host from the config only, saying how many proxies stop being managed', async () => {
    app = appFixture();
    await launch('p1', 'edge-b');
    await launch('p2', 'edge-b');
    const domains = app.fx.hosts.get('edge-b')!.domains.size;
    const result = (await app.call('hosts:remove', { name: 'edge-b', confirm: true })) as {
      removed: string;
      proxies: number;
      message: string;
    };
    expect(result).toMatchObject({ removed: 'edge-b', proxies: 2 });
    expect(result.message).toBe(
      'edge-b was removed from the config; nothing on the host was touched: its 2 proxies keep running, no longer managed by this app (add the host again to manage them).',
    );
    expect(hostNames()).toEqual(['edge-a']);
    expect(app.fx.hosts.get('edge-b')!.domains.size).toBe(domains);
  });

  it('refuses to remove the last host (the config needs one)', async () => {
    app = appFixture();
    await app.call('hosts:remove', { name: 'edge-b', confirm: true });
    await expect(app.call('hosts:remove', { name: 'edge-a', confirm: true })).rejects.toMatchObject({
      name: 'ConfigInvalidError',
      issues: [expect.objectContaining({ path: 'kvm.hosts' })],
    });
    expect(hostNames()).toEqual(['edge-a']);
  });
});

describe('hosts:unlock', () => {
  it('hands the passphrase to the host directory and answers the status; the passphrase is in no event or answer', async () => {
    const fx = fixture();
    const calls: Array<[string, string, boolean]> = [];
    const hosts: HostDirectory = {
      ...fakeHostDirectory(fx),
      unlock: async (name, passphrase, remember) => void calls.push([name, passphrase, remember]),
    };
    app = appFixture({ fx, hosts });
    const status = await app.invoke('hosts:unlock', { host: 'edge-b', passphrase: 'pass-phrase-123', remember: true });
    expect(status).toMatchObject({ ok: true, value: { name: 'edge-b', state: 'connected' } });
    expect(calls).toEqual([['edge-b', 'pass-phrase-123', true]]);
    expect(JSON.stringify(status)).not.toContain('pass-phrase-123');
    expect(JSON.stringify(app.events)).not.toContain('pass-phrase-123');
  });

  it('refuses an empty passphrase, a missing remember and an unknown host', async () => {
    app = appFixture();
    expect(await app.invoke('hosts:unlock', { host: 'edge-b', passphrase: '', remember: false })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
    expect(await app.invoke('hosts:unlock', { host: 'edge-b', passphrase: 'x' })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
    await expect(app.call('hosts:unlock', { host: 'nope', passphrase: 'x', remember: false })).rejects.toMatchObject({
      name: 'UnknownEntryError',
    });
    // A refused passphrase is not echoed in the error either.
    for (const input of [
      { host: 'edge-b', passphrase: `long-secret-${'x'.repeat(1100)}`, remember: false },
      { host: 'edge-b', passphrase: 'short-secret', remember: 'yes' },
      { host: 'edge-b', passphrase: 'short-secret', remember: false, extra: 1 },
    ]) {
      const envelope = await app.invoke('hosts:unlock', input);
      expect(envelope).toMatchObject({ ok: false, error: { name: 'ValidationError' } });
      expect(JSON.stringify(envelope)).not.toMatch(/long-secret|short-secret/);
    }
  });
});
