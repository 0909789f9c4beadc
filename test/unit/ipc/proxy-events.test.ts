/**
 * `proxy:changed` across a config edit, over the real backend (router, app service, config
 * file) on the two in-memory libvirt hosts. An edit rebuilds the backend: what the old one
 * knew of the fleet carries over (a removal still names its host and domain), and a
 * listing reports what changed while no backend was watching.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { instanceId } from '../../../electron/services/provider/kvm/names.js';
import type { ProxyChanged } from '../../../shared/proxy-changed.js';
import type { Task } from '../../../shared/tasks.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

async function run(channel: string, input: Record<string, unknown>): Promise<Task> {
  const { taskId } = (await app.call(channel, input)) as { taskId: string };
  const task = await app.finished(taskId);
  expect(task.state, `${channel} ${JSON.stringify(input)}: ${task.error?.message ?? ''}`).toBe('succeeded');
  return task;
}

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The `proxy:changed` events from `from` on. */
const changesSince = (from: number): ProxyChanged[] =>
  app.events
    .slice(from)
    .filter((e) => e.event === 'proxy:changed')
    .map((e) => e.payload as ProxyChanged);

describe('proxy:changed across a config edit', () => {
  it('a stopped proxy deleted after an edit is removed by its host and domain', async () => {
    app = appFixture();
    const proxy = (
      (await run('proxies:launch', { name: 'p1', host: 'edge-b' })).result as { proxy: { host: string; id: string } }
    ).proxy;
    expect(proxy).toMatchObject({ host: 'edge-b', id: instanceId('p1') });
    await run('proxies:stop', { name: 'p1' });
    await app.call('machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 1024, diskGiB: 10 });
    const from = app.events.length;
    await run('proxies:delete', { name: 'p1', confirm: true });
    const removals = changesSince(from).filter((c) => c.removed);
    expect(removals.map((c) => c.event)).toContain('DELETED');
    for (const removal of removals)
      expect(removal).toMatchObject({ host: 'edge-b', domain: instanceId('p1'), name: 'p1' });
  });

  it('a proxy that changed while the backend was being rebuilt is reported once it is back', async () => {
    app = appFixture();
    await run('proxies:launch', { name: 'p1' });
    await app.call('proxies:list');
    await app.call('machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 1024, diskGiB: 10 });
    // No backend is open now, so nothing watches the hosts: this stop is seen by no lifecycle listener.
    await app.fx.provider.stop('p1');
    const from = app.events.length;
    await app.call('hosts:list');
    await until(
      () => changesSince(from).some((c) => c.name === 'p1' && c.event === 'RECONCILED'),
      'the stop to be reported',
    );
    expect(changesSince(from).find((c) => c.name === 'p1')).toMatchObject({
      removed: false,
      proxy: { state: 'shutoff' },
    });
  });

  it('a listing older than an event does not undo what the event reported', async () => {
    app = appFixture();
    await run('proxies:launch', { name: 'p1', host: 'edge-b' });
    await app.call('proxies:list');
    await app.call('machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 1024, diskGiB: 10 });
    // The rebuilt backend's listing of edge-b reads the domains when told to, and answers when told to.
    const host = app.fx.hosts.get('edge-b')!;
    const listFleetDomains = host.listFleetDomains.bind(host);
    const gate = () => {
      let open = (): void => undefined;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    };
    const read = gate();
    const answer = gate();
    let listed = false;
    host.listFleetDomains = async (uri) => {
      host.listFleetDomains = listFleetDomains;
      await read.opened;
      const domains = await listFleetDomains(uri);
      listed = true;
      await answer.opened;
      return domains;
    };
    await app.call('hosts:list');
    // p1 is deleted, the listing reads the domains (no p1), then p1 is launched again.
    await run('proxies:delete', { name: 'p1', confirm: true });
    read.open();
    await until(() => listed, 'the listing to read the domains');
    await run('proxies:launch', { name: 'p1', host: 'edge-b' });
    const from = app.events.length;
    answer.open();
    // The listing has no p1, but the launch is newer: p1 is not reported gone.
    await until(() => host.listFleetDomains === listFleetDomains, 'the listing to be answered');
    await new Promise((r) => setTimeout(r, 100));
    expect(changesSince(from).filter((c) => c.name === 'p1' && c.removed)).toEqual([]);
  });
});
