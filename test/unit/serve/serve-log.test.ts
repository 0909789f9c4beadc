// `egress-desk serve` writes its log file (needs `npm run build`): startup, host state,
// task outcomes, failed calls — and never a secret that passed through it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startServe, type ServeProcess } from '../../browser/serve-process.js';
import { tempDir } from '../../support/temp-dir.js';

// Two secrets that go through serve: a proxy password in a launch, and one in a refused call.
const WAIT_MS = 20_000;
const PASSWORD = 'pw-9f2c7e41b83a-never-in-logs';
const REFUSED_PASSWORD = 'pw-d0a1e5-refused-call';

let home: string;
let serve: ServeProcess;
let socket: WebSocket;
const messages: Array<{
  id?: number;
  event?: string;
  payload?: { state?: string; kind?: string; target?: string };
  envelope?: { ok: boolean };
}> = [];

function waitFor<T>(pick: () => T | undefined, what: string, timeoutMs = WAIT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      const found = pick();
      if (found !== undefined) return resolve(found);
      if (Date.now() - started > timeoutMs)
        return reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages)}`));
      setTimeout(poll, 50);
    };
    poll();
  });
}

beforeAll(async () => {
  home = tempDir('egress-serve-log-');
  // One host over SSH to a loopback port nobody listens on: it fails to connect, and so does the launch.
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'type: kvm',
      'kvm:',
      '  hosts:',
      '    - { name: far, address: 127.0.0.1, sshUser: nobody, sshPort: 1, pool: default, network: default }',
      '  machineTypes:',
      '    tiny: { vcpus: 1, memoryMiB: 128 }',
      '  images:',
      `    tiny: { url: "file:///dev/null", sha256: '${'0'.repeat(64)}' }`,
      '  defaults: { machineType: tiny, image: tiny }',
      '',
    ].join('\n'),
  );
  serve = await startServe({ EGRESS_DESK_HOME: home, HOME: home }, ['--verbose']);
  const login = await fetch(serve.url, { redirect: 'manual' });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  socket = new WebSocket(`${serve.origin.replace('http', 'ws')}/ws`, {
    headers: { Origin: serve.origin, Cookie: cookie },
  });
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as (typeof messages)[number]));
  await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
});

afterAll(async () => {
  socket?.close();
  await serve?.stop();
});

describe('egress-desk serve: the log file', () => {
  it('logs startup, the host state, the launch outcome and a refused call, without the secrets', async () => {
    socket.send(JSON.stringify({ id: 1, channel: 'hosts:list' }));
    socket.send(
      JSON.stringify({
        id: 2,
        channel: 'proxies:launch',
        input: { name: 'egtest-log-1', host: 'far', credentials: { username: 'alice', password: PASSWORD } },
      }),
    );
    // Invalid (an unknown key) with a password in it: refused by the router.
    socket.send(
      JSON.stringify({
        id: 3,
        channel: 'proxies:launch',
        input: { name: 'egtest-log-2', credentials: { username: 'bob', password: REFUSED_PASSWORD }, colour: 'red' },
      }),
    );
    await waitFor(() => messages.find((m) => m.id === 3), 'the refused call');
    await waitFor(
      () =>
        messages.find(
          (m) =>
            m.event === 'task:update' &&
            m.payload?.kind === 'proxies:launch' &&
            ['failed', 'cancelled', 'succeeded'].includes(m.payload.state ?? ''),
        ),
      'the launch to end',
    );
    await waitFor(
      () => messages.find((m) => m.event === 'host:status' && m.payload?.state === 'error'),
      'the host to fail',
    );
    expect(messages.find((m) => m.id === 3)?.envelope?.ok).toBe(false);
    expect(await serve.stop()).toBe(0);

    const text = readFileSync(join(home, 'logs', 'egress-desk.log'), 'utf8');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; level: number; [k: string]: unknown });
    const msgs = lines.map((l) => l.msg);
    expect(msgs).toContain('serve: starting');
    expect(msgs).toContain('serve: listening on 127.0.0.1');
    expect(msgs).toContain('serve: stopped');
    expect(lines.find((l) => l.msg === 'host far: error')).toMatchObject({
      host: 'far',
      state: 'error',
      reason: expect.any(String),
    });
    expect(lines.find((l) => l.msg === 'task started: Launch egtest-log-1')).toMatchObject({
      kind: 'proxies:launch',
      target: 'egtest-log-1',
    });
    expect(lines.find((l) => l.msg === 'task failed: Launch egtest-log-1')).toMatchObject({
      state: 'failed',
      error: { message: expect.any(String) },
    });
    expect(lines.find((l) => l.msg === 'call refused: invalid input')).toMatchObject({
      channel: 'proxies:launch',
      error: { name: 'ValidationError' },
    });
    // One line per state change, not one per refresh.
    expect(msgs.filter((m) => m === 'host far: error').length).toBeLessThanOrEqual(2);
    for (const secret of [PASSWORD, REFUSED_PASSWORD]) {
      expect(text).not.toContain(secret);
      expect(serve.stderr()).not.toContain(secret);
    }
  }, 120_000);
});
