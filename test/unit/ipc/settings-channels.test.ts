/**
 * settings:get and settings:set over the real backend (router, app service) on in-memory
 * hosts: the defaults without a file; a change lands in settings.json and comes back;
 * every key the channel was not asked to change (the hosts' image transfer above all) is
 * kept; bad values are refused with the field's path and the file is left byte for byte;
 * and the health monitor, auto-bake and auto-replace follow a change from their next
 * round or launch, without a restart.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { settingsPath } from '../../../electron/services/settings/settings-file.js';
import type { ProbeOptions } from '../../../electron/services/health/proxy-probe.js';
import type { FleetHealth } from '../../../shared/health.js';
import type { Task } from '../../../shared/tasks.js';
import { ManualClock } from '../../support/manual-clock.js';
import { waitFor } from '../../support/wait.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const DEFAULTS = { health: {}, autoBake: true, autoReplace: { enabled: false, afterMinutes: 10, maxPerHour: 2 } };

const last = {
  mode: 'upload',
  reason: 'the image URL does not answer from the host',
  volume: `egress-base-${'c'.repeat(64)}.qcow2`,
  at: '2026-12-03T10:00:00.000Z',
};
const withHosts = { hosts: { 'edge-b': { imageTransfer: 'fetch', lastTransfer: last } }, health: { slowMs: 1500 } };

describe('settings:get / settings:set', () => {
  it('without a file: the defaults in force, and nothing is written by reading', async () => {
    app = appFixture();
    const file = settingsPath(app.dataDir);
    expect(await app.call('settings:get')).toEqual({ file, settings: DEFAULTS });
    expect(existsSync(file)).toBe(false);
  });

  it('round trip: what is set is on disk and comes back; sections left out and hosts are kept; config.yaml untouched', async () => {
    app = appFixture();
    const file = settingsPath(app.dataDir);
    const config = readFileSync(app.configFile, 'utf8');
    writeFileSync(file, JSON.stringify(withHosts));
    const health = { checkUrl: 'https://check.example/ok', echoUrl: 'http://echo.example/ip', slowMs: 750 };
    const autoReplace = { enabled: true, afterMinutes: 2.5, maxPerHour: 4 };
    const answer = await app.call('settings:set', { health, autoBake: false, autoReplace });
    expect(answer).toEqual({ file, settings: { health, autoBake: false, autoReplace } });
    expect(await app.call('settings:get')).toEqual(answer);
    const disk = JSON.parse(readFileSync(file, 'utf8'));
    expect(disk).toEqual({ hosts: withHosts.hosts, health, autoBake: false, autoReplace });
    // One section only: the others stay as they were.
    await app.call('settings:set', { autoBake: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      hosts: withHosts.hosts,
      health,
      autoBake: true,
      autoReplace,
    });
    // A section given replaces that section: health {} clears the URLs and the threshold.
    expect(await app.call('settings:set', { health: {} })).toMatchObject({
      settings: { health: {}, autoBake: true, autoReplace },
    });
    expect(JSON.parse(readFileSync(file, 'utf8')).hosts).toEqual(withHosts.hosts);
    expect(await app.call('hosts:imageTransfer', { name: 'edge-b' })).toMatchObject({ imageTransfer: 'fetch', last });
    expect(readFileSync(app.configFile, 'utf8')).toBe(config);
  });

  it('a section equal to what is in force is not written (absent autoBake stays absent), and the file stays 0600', async () => {
    app = appFixture();
    const file = settingsPath(app.dataDir);
    writeFileSync(file, JSON.stringify({ hosts: withHosts.hosts }));
    await app.call('settings:set', { ...DEFAULTS, health: { slowMs: 900 } });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ hosts: withHosts.hosts, health: { slowMs: 900 } });
    expect((await import('node:fs')).statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses bad values with the field path; the file is unchanged, byte for byte', async () => {
    app = appFixture();
    const file = settingsPath(app.dataDir);
    const before = `${JSON.stringify(withHosts, null, 2)}\n`;
    writeFileSync(file, before);
    const cases: Array<[input: unknown, path: string, message: RegExp]> = [
      [{ health: { checkUrl: 'ftp://x.example/' } }, 'health.checkUrl', /http:\/\/ or https:\/\//],
      [{ health: { echoUrl: 'not a url' } }, 'health.echoUrl', /http:\/\/ or https:\/\//],
      [{ health: { slowMs: 0 } }, 'health.slowMs', /./],
      [{ health: { slowMs: 1.5 } }, 'health.slowMs', /whole number/],
      [{ health: { slowMs: 120_000 } }, 'health.slowMs', /./],
      [{ autoBake: 'yes' }, 'autoBake', /true or false/],
      [{ autoReplace: { enabled: true, afterMinutes: 0 } }, 'autoReplace.afterMinutes', /./],
      [{ autoReplace: { enabled: true, maxPerHour: 0 } }, 'autoReplace.maxPerHour', /at least 1/],
      [{ autoReplace: { enabled: true, maxPerHour: 2.5 } }, 'autoReplace.maxPerHour', /whole number/],
      [{ hosts: {} }, '', /hosts/],
      [{ health: { slow: 5 } }, 'health', /slow/],
    ];
    for (const [input, path, message] of cases) {
      const envelope = (await app.invoke('settings:set', input)) as {
        ok: boolean;
        error: { name: string; message: string; issues: Array<{ path: string; message: string }> };
      };
      expect(envelope.ok, JSON.stringify(input)).toBe(false);
      expect(envelope.error.name).toBe('ValidationError');
      expect(envelope.error.issues[0]).toMatchObject({ path, message });
      if (path) expect(envelope.error.message).toContain(`${path}: `);
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
  });

  it('a broken settings file is refused naming the file, and left as it is', async () => {
    app = appFixture();
    const file = settingsPath(app.dataDir);
    writeFileSync(file, '{"health": {"slowMs": -1}}');
    await expect(app.call('settings:get')).rejects.toThrow(`${file}: health.slowMs: `);
    await expect(app.call('settings:set', { autoBake: false })).rejects.toThrow(`${file}: health.slowMs: `);
    expect(readFileSync(file, 'utf8')).toBe('{"health": {"slowMs": -1}}');
  });
});

describe('a change takes effect without a restart', () => {
  it('the health monitor uses the new URLs and threshold from its next round', async () => {
    const clock = new ManualClock();
    const asked: ProbeOptions[] = [];
    app = appFixture({
      statsClock: clock,
      probe: async (_t, o) => (asked.push(o), { ok: true, status: 200, latencyMs: 40 }),
    });
    const { taskId } = (await app.call('proxies:launch', { name: 'web', host: 'edge-a' })) as { taskId: string };
    expect((await app.finished(taskId)).state).toBe('succeeded');
    const round = async (n: number) => {
      await clock.advance(30_000);
      return waitFor(
        `health round ${n}`,
        10_000,
        () => app!.eventsOf('proxy:health')[n - 1],
        20,
      ) as Promise<FleetHealth>;
    };
    expect((await round(1)).proxies[0]).toMatchObject({ state: 'healthy' });
    expect(asked.at(-1)?.url).toBeUndefined();
    await app.call('settings:set', { health: { checkUrl: 'http://check.example/', slowMs: 20 } });
    expect((await round(2)).proxies[0]).toMatchObject({ state: 'slow' });
    expect(asked.at(-1)).toMatchObject({ url: 'http://check.example/' });
    expect(asked.at(-1)?.echo).toBeUndefined();
    await app.call('settings:set', { health: { echoUrl: 'http://echo.example/' } });
    expect((await round(3)).proxies[0]).toMatchObject({ state: 'healthy' });
    expect(asked.at(-1)).toMatchObject({ url: 'http://echo.example/', echo: true });
  });

  it('auto-bake follows the setting at the next launch', async () => {
    app = appFixture({ autoBake: true });
    const bakes = async () => ((await app!.call('tasks:list')) as Task[]).filter((t) => t.kind === 'images:bake');
    await app.call('settings:set', { autoBake: false });
    const first = (await app.call('proxies:launch', { name: 'p1', host: 'edge-b' })) as { taskId: string };
    expect((await app.finished(first.taskId)).state).toBe('succeeded');
    // The bake would start right after the launch's task ends: give it the time it would take.
    await new Promise((r) => setTimeout(r, 200));
    expect(await bakes()).toEqual([]);
    await app.call('settings:set', { autoBake: true });
    const second = (await app.call('proxies:launch', { name: 'p2', host: 'edge-b' })) as { taskId: string };
    expect((await app.finished(second.taskId)).state).toBe('succeeded');
    const [bake] = await waitFor(
      'the automatic bake',
      10_000,
      async () => ((await bakes()).length ? bakes() : undefined),
      20,
    );
    expect(bake!.title).toMatch(/after launching p2/);
    await app.call('tasks:cancel', { id: bake!.id });
    await app.finished(bake!.id);
  });

  it('auto-replace follows the setting at the next sweep', async () => {
    const clock = new ManualClock();
    app = appFixture({
      statsClock: clock,
      probe: async () => ({ ok: false, latencyMs: 0, error: 'connection refused' }),
    });
    const { taskId } = (await app.call('proxies:launch', { name: 'web', host: 'edge-a' })) as { taskId: string };
    expect((await app.finished(taskId)).state).toBe('succeeded');
    await clock.advance(30_000);
    await waitFor(
      'a failing health round',
      10_000,
      () => app!.eventsOf('proxy:health').find((h) => h.proxies[0]?.state === 'failing'),
      20,
    );
    // The sweep's clock is the process's and the monitor's is the test's (a million ms in):
    // the proxy has been failing for decades as far as the sweep can tell, well past afterMinutes.
    expect(await app.services.app.autoReplace.sweep()).toEqual([]);
    await app.call('settings:set', { autoReplace: { enabled: true, afterMinutes: 1, maxPerHour: 1 } });
    const ids = await app.services.app.autoReplace.sweep();
    expect(ids).toHaveLength(1);
    const task = await app.finished(ids[0]!);
    expect(task.title).toBe('Auto-replace web');
    await app.call('settings:set', { autoReplace: { enabled: false } });
    expect(await app.services.app.autoReplace.sweep()).toEqual([]);
  });

  it('auto-replace never replaces a failing proxy someone else launched, only yours', async () => {
    const clock = new ManualClock();
    app = appFixture({
      statsClock: clock,
      probe: async () => ({ ok: false, latencyMs: 0, error: 'connection refused' }),
    });
    await app.fx.providerAs({ user: 'bob', workstation: 'ws-2' }).launch({ name: 'theirs', host: 'edge-b' });
    const { taskId } = (await app.call('proxies:launch', { name: 'web', host: 'edge-a' })) as { taskId: string };
    expect((await app.finished(taskId)).state).toBe('succeeded');
    await app.call('proxies:list');
    await clock.advance(30_000);
    // Both are failing as far as the health monitor is concerned: the filter is ownership alone.
    await waitFor(
      'both failing',
      10_000,
      () => {
        const round = app!.eventsOf('proxy:health').at(-1)?.proxies ?? [];
        return ['theirs', 'web'].every((n) => round.find((h) => h.name === n)?.state === 'failing') || undefined;
      },
      20,
    );
    const theirs = app.fx.b.snapshot().domains;
    await app.call('settings:set', { autoReplace: { enabled: true, afterMinutes: 1, maxPerHour: 10 } });
    const ids = await app.services.app.autoReplace.sweep();
    expect(ids).toHaveLength(1);
    expect(await app.finished(ids[0]!)).toMatchObject({ state: 'succeeded', title: 'Auto-replace web' });
    expect(await app.services.app.autoReplace.sweep()).toEqual([]);
    // Bob's domain is the same one, still running; no task ever named it.
    expect(app.fx.b.snapshot().domains).toEqual(theirs);
    expect(((await app.call('tasks:list')) as Task[]).filter((t) => t.target === 'theirs')).toEqual([]);
  });
});
