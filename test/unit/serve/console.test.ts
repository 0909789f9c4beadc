/**
 * The serial console through serve mode's WebSocket: console:open answers, the guest's
 * output arrives as console:data pushed on the socket, console:write reaches the guest,
 * and the session closes by itself when the browser's socket goes (the guest's console is
 * free again for the next client, without force).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import type { ConsoleClosed, ConsoleOpen } from '../../../shared/console.js';
import type { Task } from '../../../shared/tasks.js';
import { type AppFixture, appFixture } from '../ipc/app-fixture.js';
import { type Fixture, connect, login, opened, startFixture } from './support.js';

let app: AppFixture;
let fx: Fixture;
/** The one-time link works once: every socket of this browser carries its session cookie. */
let cookie: string;

beforeAll(async () => {
  app = appFixture();
  fx = await startFixture({ router: app.services.router });
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

async function browser(): Promise<{ socket: WebSocket; messages: Array<Record<string, unknown>>; call: <T>(channel: string, input: unknown) => Promise<T> }> {
  const socket = connect(fx.server, { Origin: fx.server.origin, Cookie: cookie });
  const messages: Array<Record<string, unknown>> = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  await opened(socket);
  let id = 0;
  const call = async <T>(channel: string, input: unknown): Promise<T> => {
    const mine = ++id;
    socket.send(JSON.stringify({ id: mine, channel, input }));
    const reply = await until(() => messages.find((m) => m.id === mine) as { envelope: { ok: boolean; value?: T; error?: { name: string; message: string } } } | undefined, `the reply to ${channel}`);
    if (!reply.envelope.ok) throw Object.assign(new Error(reply.envelope.error!.message), { name: reply.envelope.error!.name });
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
    const data = await until(() => first.messages.find((m) => m.event === 'console:data'), 'console:data on the socket');
    expect(data).toEqual({ event: 'console:data', payload: { session: opened1.session, data: 'p1 login: ' } });
    await first.call('console:write', { session: opened1.session, data: 'root\r' });
    expect(host.consoles.get(proxy.id)!.written()).toBe('root\r');

    // The tab closes: its session ends, and the console is free for the next browser without force.
    first.socket.close();
    const closed = await until(() => app.eventsOf('console:closed').find((c: ConsoleClosed) => c.session === opened1.session), 'the session to close with its socket');
    expect(closed).toEqual({ session: opened1.session, cause: 'requested', reason: 'closed' });
    const second = await browser();
    const opened2 = await second.call<ConsoleOpen>('console:open', { name: 'p1' });
    expect(opened2.session).not.toBe(opened1.session);
    second.socket.close();
  });

  it('sends a console only to the browser that opened it, and refuses another tab\'s input for it', async () => {
    const { taskId } = (await app.call('proxies:launch', { name: 'p2' })) as { taskId: string };
    const proxy = ((await app.finished(taskId)).result as { proxy: { host: string; id: string } }).proxy;
    const host = app.fx.hosts.get(proxy.host)!;
    const mine = await browser();
    const other = await browser();
    const session = (await mine.call<ConsoleOpen>('console:open', { name: 'p2' })).session;
    host.consoles.get(proxy.id)!.print('p2 login: ');
    await until(() => mine.messages.find((m) => m.event === 'console:data'), 'console:data on the owner\'s socket');
    // Give the other socket every chance to receive it too.
    await new Promise((r) => setTimeout(r, 100));
    expect(other.messages.filter((m) => m.event === 'console:data')).toEqual([]);
    for (const channel of ['console:write', 'console:close']) {
      const err = (await other.call(channel, channel === 'console:write' ? { session, data: 'x' } : { session }).catch((e: unknown) => e)) as Error;
      expect(err.name).toBe('ConsoleSessionUnknown');
    }
    expect(host.consoles.get(proxy.id)!.written()).toBe('');
    mine.socket.close();
    other.socket.close();
  });
});
