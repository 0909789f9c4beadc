/**
 * The serial console through serve mode's WebSocket: console:open answers, the guest's
 * output arrives as console:data pushed on the socket, console:write reaches the guest,
 * and the session closes by itself when the browser's socket goes (the guest's console is
 * free again for the next client, without force). A console's output and end reach only
 * the tab that opened it, also while its console:open answer is still on its way (held
 * back here, as a busy server would), and when that tab goes before it arrives.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { WebSocket } from 'ws';
import type { Router } from '../../../electron/ipc/router.js';
import type { ConsoleClosed, ConsoleData, ConsoleOpen } from '../../../shared/console.js';
import type { Task } from '../../../shared/tasks.js';
import { type AppFixture, appFixture } from '../ipc/app-fixture.js';
import { type Fixture, connect, login, opened, startFixture } from './support.js';

let app: AppFixture;
let fx: Fixture;
/** The one-time link works once: every socket of this browser carries its session cookie. */
let cookie: string;

/** console:open answers wait for this; open unless a test holds them. */
let opensHeld: Promise<void> = Promise.resolve();
/** Holds console:open answers (the consoles open; only the answers wait) until the returned function is called. */
function holdOpens(): () => void {
  let release = (): void => undefined;
  opensHeld = new Promise<void>((resolve) => (release = resolve));
  const done = () => {
    release();
    opensHeld = Promise.resolve();
  };
  onTestFinished(done);
  return done;
}

beforeAll(async () => {
  app = appFixture();
  const backend = app.services.router;
  const router: Router = {
    ...backend,
    invoke: async (channel, input) => {
      const envelope = await backend.invoke(channel, input);
      if (channel === 'console:open') await opensHeld;
      return envelope;
    },
  };
  fx = await startFixture({ router });
  cookie = await login(fx.server);
});
afterAll(async () => {
  await fx.server.close();
});

async function until<T>(find: () => T | undefined, what: string, ms = 5000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Tab {
  socket: WebSocket;
  messages: Array<Record<string, unknown>>;
  call: <T>(channel: string, input: unknown) => Promise<T>;
}

/** The console events a tab has received. */
const consoleEvents = (tab: Tab) =>
  tab.messages.filter((m) => m.event === 'console:data' || m.event === 'console:closed');

/** Launches a proxy on the fixture's hosts; its fake console and domain. */
async function launched(name: string) {
  const { taskId } = (await app.call('proxies:launch', { name })) as { taskId: string };
  const proxy = ((await app.finished(taskId)).result as { proxy: { host: string; id: string } }).proxy;
  return { host: app.fx.hosts.get(proxy.host)!, domain: proxy.id };
}

async function browser(): Promise<Tab> {
  const socket = connect(fx.server, { Origin: fx.server.origin, Cookie: cookie });
  const messages: Array<Record<string, unknown>> = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  await opened(socket);
  let id = 0;
  const call = async <T>(channel: string, input: unknown): Promise<T> => {
    const mine = ++id;
    socket.send(JSON.stringify({ id: mine, channel, input }));
    const reply = await until(
      () =>
        messages.find((m) => m.id === mine) as
          { envelope: { ok: boolean; value?: T; error?: { name: string; message: string } } } | undefined,
      `the reply to ${channel}`,
    );
    if (!reply.envelope.ok)
      throw Object.assign(new Error(reply.envelope.error!.message), { name: reply.envelope.error!.name });
    return reply.envelope.value as T;
  };
  return { socket, messages, call };
}

describe('serve: the console over the WebSocket', () => {
  it('carries output and input, and closes the session when the socket goes', async () => {
    const { taskId } = (await app.call('proxies:launch', { name: 'p1' })) as { taskId: string };
    const task: Task = await app.finished(taskId);
    const proxy = (task.result as { proxy: { host: string; id: string } }).proxy;
    const host = app.fx.hosts.get(proxy.host)!;

    const first = await browser();
    const opened1 = await first.call<ConsoleOpen>('console:open', { name: 'p1' });
    host.consoles.get(proxy.id)!.print('p1 login: ');
    const data = await until(
      () => first.messages.find((m) => m.event === 'console:data'),
      'console:data on the socket',
    );
    expect(data).toEqual({ event: 'console:data', payload: { session: opened1.session, data: 'p1 login: ' } });
    await first.call('console:write', { session: opened1.session, data: 'root\r' });
    expect(host.consoles.get(proxy.id)!.written()).toBe('root\r');

    // The tab closes: its session ends, and the console is free for the next browser without force.
    first.socket.close();
    const closed = await until(
      () => app.eventsOf('console:closed').find((c: ConsoleClosed) => c.session === opened1.session),
      'the session to close with its socket',
    );
    expect(closed).toEqual({ session: opened1.session, cause: 'requested', reason: 'closed' });
    const second = await browser();
    const opened2 = await second.call<ConsoleOpen>('console:open', { name: 'p1' });
    expect(opened2.session).not.toBe(opened1.session);
    second.socket.close();
  });

  it("sends a console only to the browser that opened it, and refuses another tab's input for it", async () => {
    const { taskId } = (await app.call('proxies:launch', { name: 'p2' })) as { taskId: string };
    const proxy = ((await app.finished(taskId)).result as { proxy: { host: string; id: string } }).proxy;
    const host = app.fx.hosts.get(proxy.host)!;
    const mine = await browser();
    const other = await browser();
    const session = (await mine.call<ConsoleOpen>('console:open', { name: 'p2' })).session;
    host.consoles.get(proxy.id)!.print('p2 login: ');
    await until(() => mine.messages.find((m) => m.event === 'console:data'), "console:data on the owner's socket");
    // Give the other socket every chance to receive it too.
    await new Promise((r) => setTimeout(r, 100));
    expect(other.messages.filter((m) => m.event === 'console:data')).toEqual([]);
    for (const channel of ['console:write', 'console:close']) {
      const err = (await other
        .call(channel, channel === 'console:write' ? { session, data: 'x' } : { session })
        .catch((e: unknown) => e)) as Error;
      expect(err.name).toBe('ConsoleSessionUnknown');
    }
    expect(host.consoles.get(proxy.id)!.written()).toBe('');
    mine.socket.close();
    other.socket.close();
  });

  it('sends the output of a console whose open has not answered yet only to the tab that opened it', async () => {
    const { host, domain } = await launched('p3');
    const mine = await browser();
    const other = await browser();
    onTestFinished(() => void [mine, other].map((tab) => tab.socket.close()));
    const before = app.services.app.consoles.size;
    const release = holdOpens();
    const opening = mine.call<ConsoleOpen>('console:open', { name: 'p3' });
    await until(
      () => (app.services.app.consoles.size === before + 1 && host.consoles.get(domain)?.open ? true : undefined),
      'the console to open',
    );
    host.consoles.get(domain)!.print('p3 login: ');
    const data = await until(
      () => app.eventsOf('console:data').find((d: ConsoleData) => d.data === 'p3 login: '),
      'the output to leave the backend',
    );
    // Anything sent to the other tab before this answer has arrived by now (one socket, in order).
    await other.call('tasks:list', undefined);
    expect(consoleEvents(other)).toEqual([]);
    release();
    const opened = await opening;
    expect(opened.session).toBe(data.session);
    await mine.call('tasks:list', undefined);
    expect(consoleEvents(mine)).toEqual([
      { event: 'console:data', payload: { session: opened.session, data: 'p3 login: ' } },
    ]);
    await other.call('tasks:list', undefined);
    expect(consoleEvents(other)).toEqual([]);
  });

  it('sends the output and end of a console whose tab went before its open answered to no other tab', async () => {
    const { host, domain } = await launched('p4');
    const mine = await browser();
    const other = await browser();
    onTestFinished(() => void other.socket.close());
    const before = app.services.app.consoles.size;
    const release = holdOpens();
    void mine.call<ConsoleOpen>('console:open', { name: 'p4' }).catch(() => undefined);
    await until(
      () => (app.services.app.consoles.size === before + 1 && host.consoles.get(domain)?.open ? true : undefined),
      'the console to open',
    );
    host.consoles.get(domain)!.print('p4 login: ');
    const data = await until(
      () => app.eventsOf('console:data').find((d: ConsoleData) => d.data === 'p4 login: '),
      'the output to leave the backend',
    );
    // The tab goes; its console:open answers after that, and its console is closed for it.
    await new Promise((resolve) => {
      mine.socket.once('close', resolve);
      mine.socket.close();
    });
    release();
    await until(
      () => app.eventsOf('console:closed').find((c: ConsoleClosed) => c.session === data.session),
      'the orphaned console to close',
    );
    expect(app.services.app.consoles.size).toBe(before);
    await other.call('tasks:list', undefined);
    expect(consoleEvents(other)).toEqual([]);
  });
});
