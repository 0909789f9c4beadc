/** proxies:label, ownership on proxies:stop/delete, and the app deleting proxies whose expiry passed: over the real backend on in-memory hosts. */
import { afterEach, describe, expect, it } from 'vitest';
import { instanceId } from '../../../electron/services/provider/kvm/names.js';
import type { FleetListingView } from '../../../shared/proxies.js';
import type { Task } from '../../../shared/tasks.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

const bob = { user: 'bob', workstation: 'ws-2' };

async function task(channel: string, input: unknown): Promise<Task> {
  return app.finished(((await app.call(channel, input)) as { taskId: string }).taskId);
}

describe('fleet channels', () => {
  it('proxies:label edits labels without a restart and the row follows as proxy:changed; bad labels are a ValidationError', async () => {
    app = appFixture();
    expect((await task('proxies:launch', { name: 'p1', host: 'edge-a', labels: { env: 'dev' } })).state).toBe(
      'succeeded',
    );
    const starts = app.fx.a.count('startDomain');
    expect(await app.call('proxies:label', { name: 'p1', set: { env: 'prod' }, remove: ['nope'] })).toEqual({
      host: 'edge-a',
      labels: { env: 'prod' },
      changed: true,
    });
    expect(app.fx.a.count('startDomain')).toBe(starts);
    expect(app.eventsOf('proxy:changed').at(-1)).toMatchObject({
      name: 'p1',
      event: 'LABELLED',
      proxy: { labels: { env: 'prod' } },
    });
    expect(await app.invoke('proxies:label', { name: 'p1', set: { env: 'a b' } })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
    const listing = (await app.call('proxies:list')) as FleetListingView;
    expect(listing.you).toEqual({ user: 'tester', workstation: 'ws-1' });
    expect(listing.proxies[0]).toMatchObject({ labels: { env: 'prod' }, launchedBy: listing.you });
  });

  it("someone else's proxy: stop and delete fail naming the owner, and succeed with force", async () => {
    app = appFixture();
    await app.fx.providerAs(bob).launch({ name: 'theirs', host: 'edge-b' });
    const refused = await task('proxies:stop', { name: 'theirs' });
    expect(refused).toMatchObject({
      state: 'failed',
      error: { name: 'NotYourProxyError', message: expect.stringMatching(/launched by bob@ws-2/) },
    });
    expect((await task('proxies:delete', { name: 'theirs', confirm: true })).error?.name).toBe('NotYourProxyError');
    expect(app.fx.b.snapshot().domains[instanceId('theirs')]).toBe('running');
    expect((await task('proxies:delete', { name: 'theirs', confirm: true, force: true })).state).toBe('succeeded');
    expect(app.fx.b.snapshot().domains).toEqual({});
  });

  it('the app deletes a seen proxy whose expiry passed, as an "Expire" task, once; one without an expiry or not yet expired stays', async () => {
    app = appFixture();
    await app.fx.providerAs(bob).launch({ name: 'old', host: 'edge-a', expiresAt: '2020-01-01T00:00:00.000Z' });
    await app.fx.provider.launch({ name: 'later', host: 'edge-a', expiresAt: '2999-01-01T00:00:00.000Z' });
    await app.fx.provider.launch({ name: 'never', host: 'edge-b' });
    // Nothing is judged before the backend has seen the fleet.
    expect(app.services.app.expiry.sweep()).toEqual([]);
    await app.call('proxies:list');
    const ids = app.services.app.expiry.sweep();
    expect(ids).toHaveLength(1);
    expect(app.services.app.expiry.sweep()).toEqual([]);
    const done = await app.finished(ids[0]!);
    expect(done).toMatchObject({
      state: 'succeeded',
      title: 'Expire old',
      kind: 'proxies:delete',
      target: 'old',
      result: { expiresAt: '2020-01-01T00:00:00.000Z' },
    });
    expect(app.eventsOf('proxy:changed').some((e) => e.name === 'old' && e.removed)).toBe(true);
    expect(((await app.call('proxies:list')) as FleetListingView).proxies.map((p) => p.name)).toEqual([
      'later',
      'never',
    ]);
  });

  it('an expiry delete that fails is a failed task, tried again only after a pause', async () => {
    app = appFixture();
    await app.fx.provider.launch({ name: 'old', host: 'edge-a', expiresAt: '2020-01-01T00:00:00.000Z' });
    await app.call('proxies:list');
    app.fx.a.failOn('undefineDomain');
    const [id] = app.services.app.expiry.sweep();
    expect((await app.finished(id!)).state).toBe('failed');
    expect(app.services.app.expiry.sweep()).toEqual([]);
  });
});
