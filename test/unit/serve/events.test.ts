/** serve mode pushes the backend's events to the browser: a launch's task updates arrive over the WebSocket. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { LAUNCH_STEPS } from '../../../electron/services/provider/kvm/errors.js';
import type { Task } from '../../../shared/tasks.js';
import { type AppFixture, appFixture } from '../ipc/app-fixture.js';
import { type Fixture, connect, login, opened } from './support.js';
import { startFixture } from './support.js';

let app: AppFixture;
let fx: Fixture;
let socket: WebSocket;
const messages: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  app = appFixture();
  fx = await startFixture({ router: app.services.router });
  socket = connect(fx.server, { Origin: fx.server.origin, Cookie: await login(fx.server) });
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  await opened(socket);
});
afterAll(async () => {
  socket.close();
  // Closing the server closes the backend behind its router too.
  await fx.server.close();
});

function until<T>(find: () => T | undefined, ms = 5000): Promise<T> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const look = () => {
      const found = find();
      if (found !== undefined) return resolve(found);
      if (Date.now() - started > ms) return reject(new Error('timed out'));
      setTimeout(look, 5);
    };
    look();
  });
}

describe('serve: events over the WebSocket', () => {
  it('delivers task:update events of a launch to a connected client, through to succeeded', async () => {
    socket.send(JSON.stringify({ id: 1, channel: 'proxies:launch', input: { name: 'p1' } }));
    const reply = await until(
      () => messages.find((m) => m.id === 1) as { envelope: { ok: true; value: { taskId: string } } } | undefined,
    );
    const { taskId } = reply.envelope.value;
    const updates = () =>
      messages
        .filter((m) => m.event === 'task:update' && (m.payload as Task).id === taskId)
        .map((m) => m.payload as Task);
    const last = await until(() => updates().find((t) => t.state === 'succeeded'));
    expect(last.steps.map((s) => s.name)).toEqual([...LAUNCH_STEPS]);
    expect(updates()[0]!.state).toBe('queued');
    // proxy:changed came too, from the fake host's lifecycle events.
    expect(messages.some((m) => m.event === 'proxy:changed' && (m.payload as { name?: string }).name === 'p1')).toBe(
      true,
    );
  });
});
