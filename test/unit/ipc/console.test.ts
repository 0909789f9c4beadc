/**
 * Serial console sessions over the in-memory libvirt hosts: through the real router and
 * app service (console:open/write/close, console:data/closed events), and the session
 * service alone for its limits and backpressure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleOwner } from '../../../electron/ipc/console-owner.js';
import { ConsoleSessions } from '../../../electron/services/app/console-sessions.js';
import type { EventName, EventPayload } from '../../../shared/ipc.js';
import type { Task } from '../../../shared/tasks.js';
import type { FakeHost } from '../../support/fake-libvirt.js';
import { type Fixture, fixture } from '../provider/provider-fixture.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const until = async (check: () => boolean, what: string, ms = 5000): Promise<void> => {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

interface Opened {
  session: string;
  host: string;
  domain: string;
}

/** A running proxy on the fixture, its host and domain. */
async function launched(a: AppFixture, name: string): Promise<{ host: FakeHost; domain: string }> {
  const { taskId } = (await a.call('proxies:launch', { name })) as { taskId: string };
  const task: Task = await a.finished(taskId);
  expect(task.state, JSON.stringify(task.error)).toBe('succeeded');
  const proxy = (task.result as { proxy: { host: string; id: string } }).proxy;
  return { host: a.fx.hosts.get(proxy.host)!, domain: proxy.id };
}

const output = (a: AppFixture, session: string) =>
  a
    .eventsOf('console:data')
    .filter((e) => e.session === session)
    .map((e) => e.data)
    .join('');
const closedOf = (a: AppFixture, session: string) => a.eventsOf('console:closed').filter((e) => e.session === session);

describe('console over the router', () => {
  it('opens, forwards output as events, writes input, closes once', async () => {
    app = appFixture();
    const { host, domain } = await launched(app, 'p1');
    const opened = (await app.call('console:open', { name: 'p1' })) as Opened;
    expect(opened).toMatchObject({ host: host.name, domain });
    const guest = host.consoles.get(domain)!;
    guest.print('Debian GNU/Linux 12 p1 ttyS0\r\n\r\np1 login: ');
    await until(() => output(app!, opened.session).includes('login: '), 'the login prompt');
    expect(output(app, opened.session)).toBe('Debian GNU/Linux 12 p1 ttyS0\r\n\r\np1 login: ');

    expect(await app.call('console:write', { session: opened.session, data: 'root\r' })).toEqual({ bytes: 5 });
    expect(await app.call('console:write', { session: opened.session, data: 'é\r' })).toEqual({ bytes: 3 });
    expect(guest.written()).toBe('root\ré\r');

    expect(await app.call('console:close', { session: opened.session })).toEqual({ closed: true });
    expect(closedOf(app, opened.session)).toEqual([{ session: opened.session, cause: 'requested', reason: 'closed' }]);
    await until(() => !guest.open, 'the stream to end');
    expect(await app.call('console:close', { session: opened.session })).toEqual({ closed: false });
    await expect(app.call('console:write', { session: opened.session, data: 'x' })).rejects.toMatchObject({
      name: 'ConsoleSessionClosedError',
      message: expect.stringMatching(/connect again/),
    });
    expect(closedOf(app, opened.session)).toHaveLength(1);
  });

  it('the domain stopping closes the session with cause stopped', async () => {
    app = appFixture();
    const { host, domain } = await launched(app, 'p1');
    const opened = (await app.call('console:open', { name: 'p1' })) as Opened;
    await host.destroyDomain(domain);
    await until(() => closedOf(app!, opened.session).length > 0, 'console:closed');
    expect(closedOf(app, opened.session)).toEqual([
      { session: opened.session, cause: 'stopped', reason: 'p1 stopped: start it, then connect again' },
    ]);
    await expect(app.call('console:open', { name: 'p1' })).rejects.toMatchObject({
      name: 'ConsoleUnavailableError',
      message: 'p1 is shutoff: its console exists only while it runs; start it, then connect',
    });
    await expect(app.call('console:open', { name: 'nope' })).rejects.toMatchObject({ name: 'ProxyNotFoundError' });
  });

  it('SAFE by default: a console held elsewhere is refused with a question; force takes it over', async () => {
    app = appFixture();
    const { host, domain } = await launched(app, 'p1');
    const other = await host.openConsole(domain, { force: false }); // virsh console, say
    const otherEnded = new Promise<void>((resolve) => other.on('end', resolve).resume());
    await expect(app.call('console:open', { name: 'p1' })).rejects.toMatchObject({
      name: 'ConsoleBusyError',
      message: expect.stringMatching(/^another client holds the console of p1: take it over\?/),
    });
    const opened = (await app.call('console:open', { name: 'p1', force: true })) as Opened;
    await otherEnded;
    host.consoles.get(domain)!.print('hello');
    await until(() => output(app!, opened.session) === 'hello', 'output after the takeover');
  });

  it('forcing over this backend’s own session ends that one, saying so', async () => {
    app = appFixture();
    await launched(app, 'p1');
    const first = (await app.call('console:open', { name: 'p1' })) as Opened;
    await expect(app.call('console:open', { name: 'p1' })).rejects.toMatchObject({
      name: 'ConsoleBusyError',
      message: expect.stringMatching(/another console window of this app/),
    });
    const second = (await app.call('console:open', { name: 'p1', force: true })) as Opened;
    await until(() => closedOf(app!, first.session).length > 0, 'the first session to close');
    expect(closedOf(app, first.session)[0]).toMatchObject({
      cause: 'ended',
      reason: 'another console window took this console over',
    });
    expect(closedOf(app, second.session)).toEqual([]);
  });

  it('decodes UTF-8 split across chunks, and keeps a trailing partial character until the end', async () => {
    app = appFixture();
    const { host, domain } = await launched(app, 'p1');
    const opened = (await app.call('console:open', { name: 'p1' })) as Opened;
    const guest = host.consoles.get(domain)!;
    const text = 'é € 😀 ok';
    const bytes = Buffer.from(text, 'utf8');
    // One byte at a time: every multi-byte character is split.
    for (const b of bytes) guest.print(Uint8Array.of(b));
    await until(() => output(app!, opened.session) === text, 'the decoded text');
    expect(output(app, opened.session)).not.toContain('\uFFFD');
    // Bytes that never complete a character become U+FFFD when the session ends.
    guest.print(Uint8Array.of(0xe2, 0x82));
    await new Promise((r) => setTimeout(r, 30));
    expect(output(app, opened.session)).toBe(text);
    await app.call('console:close', { session: opened.session });
    expect(output(app, opened.session)).toBe(`${text}\uFFFD`);
  });

  it('a failing stream closes the session with cause error; closing the app closes the rest', async () => {
    app = appFixture();
    const a = await launched(app, 'p1');
    await launched(app, 'p2');
    const s1 = (await app.call('console:open', { name: 'p1' })) as Opened;
    const s2 = (await app.call('console:open', { name: 'p2' })) as Opened;
    a.host.consoles.get(a.domain)!.fail(new Error('connection reset by peer'));
    await until(() => closedOf(app!, s1.session).length > 0, 'the failed session to close');
    expect(closedOf(app, s1.session)[0]).toMatchObject({
      cause: 'error',
      reason: expect.stringMatching(/connection reset by peer/),
    });
    const events = app.events;
    await app.close();
    expect(events.filter((e) => e.event === 'console:closed').map((e) => e.payload)).toContainEqual({
      session: s2.session,
      cause: 'shutdown',
      reason: 'the app is closing',
    });
    app = undefined;
  });

  it('sessions a client opened close when it goes (ConsoleOwner: serve sockets, the window)', async () => {
    app = appFixture();
    await launched(app, 'p1');
    await launched(app, 'p2');
    const owner = new ConsoleOwner(app.services.router);
    const call = async (channel: string, input: unknown) => {
      const envelope = await owner.invoke(channel, input);
      if (!envelope.ok) throw new Error(envelope.error.message);
      return envelope.value as Opened;
    };
    const s1 = await call('console:open', { name: 'p1' });
    const s2 = await call('console:open', { name: 'p2' });
    await call('console:close', { session: s1.session });
    const other = (await app.call('console:open', { name: 'p1' })) as Opened; // someone else's
    await owner.release();
    expect(closedOf(app, s2.session)).toEqual([{ session: s2.session, cause: 'requested', reason: 'closed' }]);
    expect(closedOf(app, s1.session)).toHaveLength(1);
    expect(closedOf(app, other.session)).toEqual([]);
  });
});

describe('ConsoleSessions', () => {
  function sessions(fx: Fixture, options: { maxSessions?: number; maxPendingInput?: number } = {}) {
    const events: Array<{ event: EventName; payload: unknown }> = [];
    const service = new ConsoleSessions({
      backend: async () => ({ provider: fx.provider, apiFor: async (name: string) => fx.hosts.get(name)! }),
      emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void events.push({ event, payload }),
      ...options,
    });
    return { service, events };
  }

  async function launch(fx: Fixture, name: string) {
    const r = await fx.provider.launch({ name }, { wait: false });
    return { host: fx.hosts.get(r.proxy.host)!, domain: r.proxy.id };
  }

  it('refuses past the session limit, and counts opens in flight', async () => {
    const fx = fixture();
    for (const n of ['p1', 'p2', 'p3']) await launch(fx, n);
    const { service } = sessions(fx, { maxSessions: 2 });
    const [a, b, c] = await Promise.allSettled([
      service.open({ name: 'p1' }),
      service.open({ name: 'p2' }),
      service.open({ name: 'p3' }),
    ]);
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('fulfilled');
    expect(c).toMatchObject({
      status: 'rejected',
      reason: { name: 'ConsoleLimitError', message: expect.stringMatching(/^2 consoles are open already.*close one/) },
    });
    service.close({ session: (a as PromiseFulfilledResult<{ session: string }>).value.session });
    await expect(service.open({ name: 'p3' })).resolves.toMatchObject({ domain: expect.any(String) });
    service.closeAll('test over');
    expect(service.size).toBe(0);
  });

  it('writes in order, each resolving once the stream took it; refuses input past the bound', async () => {
    const fx = fixture();
    const { host, domain } = await launch(fx, 'p1');
    const { service } = sessions(fx, { maxPendingInput: 10 });
    const { session } = await service.open({ name: 'p1' });
    const guest = host.consoles.get(domain)!;
    guest.writeTicks = 20;
    const order: string[] = [];
    guest.onInput((t) => order.push(t));
    const first = service.write({ session, data: 'abcd' }).then(() => order.push('resolved abcd'));
    const second = service.write({ session, data: 'efgh' }).then(() => order.push('resolved efgh'));
    await expect(service.write({ session, data: 'ijk' })).rejects.toMatchObject({
      name: 'ConsoleInputOverflowError',
      message: expect.stringMatching(/not taking input as fast/),
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['abcd', 'resolved abcd', 'efgh', 'resolved efgh']);
    expect(guest.written()).toBe('abcdefgh');
    service.closeAll('test over');
  });

  it('coalesces small chunks into few events and splits large output at the event limit', async () => {
    const fx = fixture();
    const { host, domain } = await launch(fx, 'p1');
    const { service, events } = sessions(fx);
    const { session } = await service.open({ name: 'p1' });
    const guest = host.consoles.get(domain)!;
    for (let i = 0; i < 200; i++) guest.print(`line ${i}\r\n`);
    const big = 'x'.repeat(150 * 1024);
    guest.print(big);
    await until(
      () =>
        events
          .filter((e) => e.event === 'console:data')
          .reduce((n, e) => n + (e.payload as { data: string }).data.length, 0) >= big.length,
      'all output',
    );
    const data = events
      .filter((e) => e.event === 'console:data')
      .map((e) => e.payload as { session: string; data: string });
    expect(data.every((d) => d.session === session && d.data.length <= 64 * 1024)).toBe(true);
    expect(data.length).toBeLessThan(10);
    expect(data.map((d) => d.data).join('')).toBe([...Array(200).keys()].map((i) => `line ${i}\r\n`).join('') + big);
    service.closeAll('test over');
  });
});
