/**
 * Every config write through the router emits `config:changed` with `by: 'app'` (issue 39):
 * the renderer's stores follow that event instead of reloading after their own writes. The
 * event carries the config as written and leaves before the call's answer; a refused write
 * emits nothing. The backend log keeps "changed outside the app" for edits by hand.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { appEventLogger } from '../../../electron/ipc/backend-log.js';
import { serializeConfig } from '../../../electron/services/config/document.js';
import type { ConfigChanged } from '../../../shared/ipc.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

/** Calls a channel and returns the config:changed events seen by the time its answer came. */
async function changesOf(channel: string, input: unknown): Promise<ConfigChanged[]> {
  const before = app.eventsOf('config:changed').length;
  await app.call(channel, input);
  return app.eventsOf('config:changed').slice(before);
}

describe('config:changed after a write through the app', () => {
  it('a catalog edit, a default and a host edit each emit one, with the new config, before the answer', async () => {
    app = appFixture();
    const [saved] = await changesOf('machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 });
    expect(saved).toMatchObject({ by: 'app', path: app.configFile, created: false });
    expect(Object.keys(saved!.config!.kvm!.machineTypes).sort()).toEqual(['medium', 'small']);

    const [defaulted] = await changesOf('defaults:set', { machineType: 'medium' });
    expect(defaulted?.config?.kvm?.defaults?.machineType).toBe('medium');

    expect(await changesOf('machineTypes:remove', { name: 'small', confirm: true })).toHaveLength(1);

    const [added] = await changesOf('hosts:add', {
      host: { name: 'edge-c', address: '127.0.0.1', sshPort: 2222, sshUser: 'root' },
    });
    expect(added?.config?.kvm?.hosts.map((h) => h.name)).toContain('edge-c');
    const [removed] = await changesOf('hosts:remove', { name: 'edge-c', confirm: true });
    expect(removed?.config?.kvm?.hosts.map((h) => h.name)).not.toContain('edge-c');
  });

  it('an import emits one with the imported config', async () => {
    app = appFixture();
    const next = structuredClone(app.config);
    next.kvm!.machineTypes.large = { vcpus: 4, memoryMiB: 4096 };
    const [imported] = await changesOf('config:import', { text: serializeConfig(next), confirm: true });
    expect(imported).toMatchObject({ by: 'app', path: app.configFile });
    expect(Object.keys(imported!.config!.kvm!.machineTypes)).toContain('large');
  });

  it('a refused write emits none', async () => {
    app = appFixture();
    await expect(app.call('hosts:add', { host: { name: 'edge-b', address: 'h' } })).rejects.toThrow();
    await expect(app.call('machineTypes:remove', { name: 'nope', confirm: true })).rejects.toThrow();
    expect(await app.invoke('config:import', { text: 'type: [kvm', confirm: true })).toMatchObject({ ok: false });
    expect(app.eventsOf('config:changed')).toEqual([]);
  });
});

describe('backend log: config:changed', () => {
  it('logs an edit made outside the app, not the app’s own write', () => {
    const lines: Array<{ msg: string }> = [];
    const sink = appEventLogger(
      pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) }),
    );
    const config = { type: 'kvm' as const };
    sink('config:changed', { path: '/srv/test/config.yaml', created: false, config, by: 'app' });
    expect(lines).toEqual([]);
    sink('config:changed', { path: '/srv/test/config.yaml', created: false, config, by: 'file' });
    expect(lines.map((l) => l.msg)).toEqual([
      'config: /srv/test/config.yaml changed outside the app; the new config is in use',
    ]);
  });
});
