/**
 * Fuzzing serve's WebSocket: a real `serve` server (the backend over in-memory libvirt
 * hosts) takes arbitrary text, JSON of every shape, call-shaped messages with real and
 * made-up channels and random inputs, and binary frames, on one socket. Each gets exactly
 * one answer with an envelope: a ProtocolError for anything that is not a well-formed
 * call (carrying the id when one can be salvaged), the router's own answer otherwise, and
 * never a stack trace or an "internal error". Another socket, open the whole time, keeps
 * answering and sees none of it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawData, WebSocket } from 'ws';
import { SERVE_MAX_MESSAGE_BYTES } from '../../../shared/ipc-transport.js';
import { channels } from '../../../shared/ipc.js';
import { type AppFixture, appFixture } from '../ipc/app-fixture.js';
import { type Fixture, connect, login, opened, startFixture } from '../serve/support.js';
import { FUZZ_TEST_TIMEOUT_MS, fuzzParams } from './fuzz-params.js';

/** One socket's answers (messages with an envelope) and everything else it received. */
class Peer {
  readonly answers: unknown[] = [];
  readonly others: unknown[] = [];
  private waiter: ((answer: unknown) => void) | null = null;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data: RawData) => {
      const message = JSON.parse(String(data)) as unknown;
      if (typeof message === 'object' && message !== null && 'envelope' in message) {
        const waiter = this.waiter;
        this.waiter = null;
        if (waiter) waiter(message);
        else this.answers.push(message);
      } else {
        this.others.push(message);
      }
    });
  }

  /** Sends and waits for the answer. */
  ask(data: string | Buffer, binary = false): Promise<unknown> {
    expect(this.answers, 'an answer arrived that nothing asked for').toEqual([]);
    const answer = new Promise<unknown>((resolve) => (this.waiter = resolve));
    this.socket.send(data, { binary });
    return answer;
  }
}

let app: AppFixture;
let fx: Fixture;
let cookie: string;
let fuzzed: Peer;
let bystander: Peer;

async function open(): Promise<Peer> {
  const socket = connect(fx.server, { Origin: fx.server.origin, Cookie: cookie });
  const peer = new Peer(socket);
  await opened(socket);
  return peer;
}

beforeAll(async () => {
  app = appFixture();
  fx = await startFixture({ router: app.services.router });
  cookie = await login(fx.server);
  fuzzed = await open();
  bystander = await open();
});
afterAll(async () => {
  fuzzed.socket.close();
  bystander.socket.close();
  await fx.server.close();
});

const CHANNELS = Object.keys(channels);

/** What the message would be to a correct server: a call, or something to refuse with ProtocolError. */
function classify(text: string, binary: boolean): { call: true; id: number } | { call: false; id: number | null } {
  if (binary) return { call: false, id: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { call: false, id: null };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { call: false, id: null };
  const record = value as Record<string, unknown>;
  const id = record.id;
  const goodId = typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
  const keysOk = Object.keys(record).every((k) => k === 'id' || k === 'channel' || k === 'input');
  const channelOk = typeof record.channel === 'string' && record.channel.length <= 200;
  return goodId !== null && keysOk && channelOk ? { call: true, id: goodId } : { call: false, id: goodId };
}

const id = fc.oneof(
  { weight: 20, arbitrary: fc.nat() },
  fc.constantFrom(-1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, '7', null, true, [], {}),
);
const channel = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CHANNELS) },
  fc.constantFrom('', 'nope:x', 'app:info ', '__proto__', 'constructor', 'toString', 'x'.repeat(201)),
  fc.string({ maxLength: 20 }),
);
const input = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    {},
    { name: 'ep-x' },
    { name: '' },
    { id: 'task-1' },
    { host: 'edge-a' },
    { session: 'x', data: 'y' },
    'ep-fuzz',
    { text: 'type: kvm', syntax: 'yaml' },
  ),
);
const callShaped = fc
  .record(
    {
      id,
      channel,
      input,
      extra: fc.oneof(
        { weight: 9, arbitrary: fc.constant(undefined) },
        fc.constantFrom('admin', 'id2', '__proto__', 'Input'),
      ),
    },
    { requiredKeys: ['id', 'channel'] },
  )
  .map(({ extra, ...call }) => JSON.stringify(extra === undefined ? call : { ...call, [extra]: 1 }));

const frame = fc.oneof(
  { weight: 6, arbitrary: callShaped.map((text) => ({ text, binary: false })) },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ text: JSON.stringify(v) ?? 'null', binary: false })),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 60 }).map((text) => ({ text, binary: false })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '',
        ' ',
        '{',
        '{"id":1',
        '{"id":1,"channel":"app:info"',
        '[]',
        '""',
        '1e999',
        '{"id":1e999,"channel":"app:info"}',
        '{"id":1,"id":2,"channel":"app:info"}',
        '{"__proto__":{"id":1},"channel":"app:info"}',
        '\u0000',
      )
      .map((text) => ({ text, binary: false })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 40 }).map((b) => ({ text: Buffer.from(b).toString('latin1'), binary: true })),
  },
);

function checkAnswer(answer: unknown, text: string, binary: boolean): void {
  expect(typeof answer === 'object' && answer !== null).toBe(true);
  const { id: answeredId, envelope } = answer as {
    id: unknown;
    envelope: { ok: boolean; error?: { name: unknown; message: unknown }; value?: unknown };
  };
  const expected = classify(text, binary);
  expect(answeredId, `id for ${text}`).toBe(expected.id);
  if (!expected.call) {
    expect(envelope.ok).toBe(false);
    expect(envelope.error?.name, `not refused as a malformed message: ${text}`).toBe('ProtocolError');
  }
  if (envelope.ok === false) {
    const { name, message } = envelope.error ?? {};
    expect(typeof name).toBe('string');
    expect(typeof message === 'string' && message.length > 0).toBe(true);
    // Never a bug's words or a stack trace.
    expect(message as string, `for ${text}`).not.toMatch(
      /internal error|\n\s+at |TypeError|Cannot read properties|undefined is not/,
    );
  }
}

describe('fuzz: serve WebSocket messages', () => {
  it(
    'every frame gets one envelope on its own socket: ProtocolError unless it is a well-formed call',
    async () => {
      await fc.assert(
        fc.asyncProperty(frame, async ({ text, binary }) => {
          const answer = await fuzzed.ask(binary ? Buffer.from(text, 'latin1') : text, binary);
          checkAnswer(answer, text, binary);
        }),
        fuzzParams({ timeout: 10_000 }),
      );
      // serve is still up and still itself, and the other socket saw no answer of the fuzzed one's.
      expect(await bystander.ask(JSON.stringify({ id: 1, channel: 'app:info' }))).toMatchObject({
        id: 1,
        envelope: { ok: true, value: { name: 'Egress Desk' } },
      });
      expect(bystander.answers).toEqual([]);
      for (const message of bystander.others) expect(message).toHaveProperty('event');
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it('a socket that breaks the protocol (invalid UTF-8, a frame over the limit) is closed alone', async () => {
    for (const send of [
      (s: WebSocket) => s.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false }),
      (s: WebSocket) => s.send('x'.repeat(SERVE_MAX_MESSAGE_BYTES + 1)),
    ]) {
      const victim = await open();
      const closed = new Promise<number>((resolve) => victim.socket.once('close', resolve));
      victim.socket.on('error', () => undefined);
      send(victim.socket);
      expect([1007, 1009]).toContain(await closed);
      expect(await bystander.ask(JSON.stringify({ id: 2, channel: 'app:info' }))).toMatchObject({
        id: 2,
        envelope: { ok: true },
      });
      expect(await fuzzed.ask(JSON.stringify({ id: 3, channel: 'app:info' }))).toMatchObject({
        id: 3,
        envelope: { ok: true },
      });
    }
  });
});
