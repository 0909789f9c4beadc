import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { SERVE_MAX_MESSAGE_BYTES } from '../../../shared/ipc-transport.js';
import { type Fixture, connect, login, nextMessage, opened, startFixture } from './support.js';

let fx: Fixture;
let cookie: string;
let socket: WebSocket;
beforeAll(async () => {
  fx = await startFixture();
  cookie = await login(fx.server);
  socket = connect(fx.server, { Origin: fx.server.origin, Cookie: cookie });
  await opened(socket);
});
afterAll(async () => {
  socket.close();
  await fx.server.close();
});

async function call(message: unknown): Promise<unknown> {
  const reply = nextMessage(socket);
  socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  return reply;
}

describe('serve: who may open the WebSocket', () => {
  it('refuses a socket without the session cookie (401)', async () => {
    await expect(opened(connect(fx.server, { Origin: fx.server.origin }))).rejects.toThrow('refused: 401');
  });

  it('refuses a socket from another origin, even with the cookie (403)', async () => {
    for (const origin of ['http://evil.example', `http://localhost:${fx.server.port}`, 'null']) {
      await expect(opened(connect(fx.server, { Origin: origin, Cookie: cookie }))).rejects.toThrow('refused: 403');
    }
    await expect(opened(connect(fx.server, { Cookie: cookie }))).rejects.toThrow('refused: 403');
  });
});

describe('serve: the contract over the WebSocket', () => {
  it('answers app:info through the router', async () => {
    expect(await call({ id: 1, channel: 'app:info' })).toEqual({
      id: 1,
      envelope: { ok: true, value: { name: 'Egress Desk', version: '9.9.9', frontEnd: 'serve', dataDir: fx.dataDir } },
    });
  });

  it('answers config:get (first start writes the default config)', async () => {
    const reply = (await call({ id: 2, channel: 'config:get' })) as {
      id: number;
      envelope: { ok: true; value: { path: string; created: boolean; config: unknown } };
    };
    expect(reply.id).toBe(2);
    expect(reply.envelope.ok).toBe(true);
    expect(reply.envelope.value.path).toBe(join(fx.dataDir, 'config.yaml'));
    expect(reply.envelope.value.config).toMatchObject({ type: 'kvm' });
    expect(existsSync(join(fx.dataDir, 'config.yaml'))).toBe(true);
  });

  it('passes the router its validation errors', async () => {
    expect(await call({ id: 3, channel: 'app:info', input: { x: 1 } })).toMatchObject({
      id: 3,
      envelope: { ok: false, error: { name: 'ValidationError' } },
    });
    expect(await call({ id: 4, channel: 'nope:x' })).toMatchObject({
      id: 4,
      envelope: { ok: false, error: { message: expect.stringMatching(/unknown channel/) } },
    });
  });

  it.each([
    ['not JSON', '{oops', null],
    ['a JSON string', '"hello"', null],
    ['null', 'null', null],
    ['an array', '[1,2]', null],
    ['no channel', { id: 5 }, 5],
    ['a numeric channel', { id: 6, channel: 7 }, 6],
    ['a string id', { id: 'x', channel: 'app:info' }, null],
    ['a negative id', { id: -1, channel: 'app:info' }, null],
    ['extra keys', { id: 8, channel: 'app:info', admin: true }, 8],
  ])('answers a malformed message (%s) with a ProtocolError envelope', async (_what, message, id) => {
    expect(await call(message)).toEqual({
      id,
      envelope: { ok: false, error: { name: 'ProtocolError', message: expect.any(String) } },
    });
  });

  it('refuses binary messages', async () => {
    const reply = nextMessage(socket);
    socket.send(Buffer.from('{"id":9,"channel":"app:info"}'));
    expect(await reply).toMatchObject({
      id: null,
      envelope: { ok: false, error: { name: 'ProtocolError', message: expect.stringMatching(/binary/) } },
    });
  });

  it('still answers after all of that', async () => {
    expect(await call({ id: 10, channel: 'app:info' })).toMatchObject({ id: 10, envelope: { ok: true } });
  });

  it('closes a socket that sends more than 1 MiB (1009), and the server keeps serving', async () => {
    const big = connect(fx.server, { Origin: fx.server.origin, Cookie: cookie });
    await opened(big);
    const closed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
    big.on('error', () => {});
    big.send(JSON.stringify({ id: 1, channel: 'app:info', input: 'x'.repeat(SERVE_MAX_MESSAGE_BYTES) }));
    expect(await closed).toBe(1009);
    expect(await call({ id: 11, channel: 'app:info' })).toMatchObject({ id: 11, envelope: { ok: true } });
  });

  it('pushes events to every browser as {event, payload}', async () => {
    const message = nextMessage(socket);
    fx.server.broadcast('host:status', { name: 'local' });
    expect(await message).toEqual({ event: 'host:status', payload: { name: 'local' } });
  });
});
