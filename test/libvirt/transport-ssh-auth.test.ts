/**
 * SSH authentication and connection failures against the real sshd on 127.0.0.1: encrypted
 * keys and their passphrase prompt, refused keys, refused and silent servers.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import {
  type AskPassphrase,
  SshAuthError,
  SshConnectError,
  type SshConnectionPool,
  type SshDialer,
  type PassphraseRequest,
  type SshPoolEvent,
  type SshPoolOptions,
} from '../../electron/transport/index.js';
import { connectTcp } from '../../electron/transport/ssh-connect.js';
import { authListRoundTrip, generateKey, useLoopbackSsh } from '../support/transport.js';

const env = testEnv();
const ssh = useLoopbackSsh(env);
const { port, cleanups } = ssh;

function setup(options: Partial<SshPoolOptions> = {}): {
  pool: SshConnectionPool;
  events: SshPoolEvent[];
  sshDir: string;
} {
  const { home, pool, events } = ssh.pool({ pool: options });
  return { pool, events, sshDir: home.sshDir };
}

function dial(pool: SshConnectionPool, identityFile: string, sshPort = port): ReturnType<SshDialer['dial']> {
  return ssh.dialer(pool, { identityFile, sshPort }).dial();
}

/** A passphrase prompt that answers from a script and records what it was asked. */
function scripted(answers: Array<string | undefined>): {
  ask: AskPassphrase;
  asked: Array<{ path: string } & PassphraseRequest>;
} {
  const asked: Array<{ path: string } & PassphraseRequest> = [];
  return {
    asked,
    ask: (path, request) => {
      asked.push({ path, ...request });
      return Promise.resolve(answers.length > 0 ? answers.shift() : undefined);
    },
  };
}

describe('SSH authentication with an encrypted key', () => {
  it('asks for the passphrase once and connects', async () => {
    const prompt = scripted([env.EGRESS_TEST_SSH_PASSPHRASE]);
    const { pool } = setup({ askPassphrase: prompt.ask });
    const stream = await dial(pool, env.EGRESS_TEST_SSH_KEY_ENCRYPTED);
    expect((await authListRoundTrip(stream)).status).toBe(0);
    expect(prompt.asked).toEqual([
      { path: env.EGRESS_TEST_SSH_KEY_ENCRYPTED, endpoint: `root@127.0.0.1:${port}`, attempt: 1, retry: false },
    ]);
    stream.destroy();
  });

  it('asks again after a wrong passphrase, then connects', async () => {
    const prompt = scripted(['not-it', env.EGRESS_TEST_SSH_PASSPHRASE]);
    const { pool } = setup({ askPassphrase: prompt.ask });
    const stream = await dial(pool, env.EGRESS_TEST_SSH_KEY_ENCRYPTED);
    expect((await authListRoundTrip(stream)).status).toBe(0);
    expect(prompt.asked.map((a) => [a.attempt, a.retry])).toEqual([
      [1, false],
      [2, true],
    ]);
    stream.destroy();
  });

  it('gives up after three wrong passphrases with a clear error that holds no secret', async () => {
    const prompt = scripted(['wrong-one', 'wrong-two', 'wrong-three', 'never-asked']);
    const { pool } = setup({ askPassphrase: prompt.ask });
    const err = await dial(pool, env.EGRESS_TEST_SSH_KEY_ENCRYPTED).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshAuthError);
    const auth = err as SshAuthError;
    expect(prompt.asked).toHaveLength(3);
    expect(auth.attempts).toEqual([
      { method: 'key', source: env.EGRESS_TEST_SSH_KEY_ENCRYPTED, outcome: 'wrong-passphrase', detail: '3 attempts' },
    ]);
    expect(auth.message).toContain(`wrong passphrase for ${env.EGRESS_TEST_SSH_KEY_ENCRYPTED}`);
    for (const secret of ['wrong-one', 'wrong-two', 'wrong-three', env.EGRESS_TEST_SSH_PASSPHRASE]) {
      expect(auth.message).not.toContain(secret);
      expect(JSON.stringify(auth)).not.toContain(secret);
    }
  });

  it('skips the key when the person declines, and says so', async () => {
    const prompt = scripted([undefined]);
    const { pool } = setup({ askPassphrase: prompt.ask });
    const err = await dial(pool, env.EGRESS_TEST_SSH_KEY_ENCRYPTED).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshAuthError);
    expect((err as SshAuthError).attempts[0]?.outcome).toBe('skipped');
    expect((err as SshAuthError).message).toContain('skipped: no passphrase given');
  });

  it('does not ask for the passphrase of a key the server would refuse', async () => {
    const prompt = scripted(['whatever']);
    const { pool, sshDir } = setup({ askPassphrase: prompt.ask });
    const stranger = generateKey(sshDir, 'id_stranger', 'stranger-passphrase');
    const err = await dial(pool, stranger).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshAuthError);
    expect(prompt.asked).toEqual([]);
    expect((err as SshAuthError).attempts).toEqual([{ method: 'key', source: stranger, outcome: 'rejected' }]);
  });

  it('close() cancels a connection that waits on the passphrase prompt', async () => {
    let asked!: () => void;
    const prompted = new Promise<void>((resolve) => (asked = resolve));
    const never: SshPoolOptions['askPassphrase'] = () => {
      asked();
      return new Promise(() => undefined); // the person walked away
    };
    const { pool } = setup({ askPassphrase: never });
    const pending = dial(pool, env.EGRESS_TEST_SSH_KEY_ENCRYPTED).catch((e: unknown) => e);
    await prompted;
    const t0 = performance.now();
    await pool.close();
    expect(await pending).toMatchObject({ name: 'SshConnectionLostError' });
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('does not ask again when the connection is made again', async () => {
    const prompt = scripted([env.EGRESS_TEST_SSH_PASSPHRASE]);
    const sockets: Socket[] = [];
    const { pool, events } = setup({
      askPassphrase: prompt.ask,
      connectTcp: async (host, p, signal) => {
        const s = (await connectTcp(host, p, signal)) as Socket;
        sockets.push(s);
        return s;
      },
    });
    const first = await dial(pool, env.EGRESS_TEST_SSH_KEY_ENCRYPTED);
    await authListRoundTrip(first);
    const lost = new Promise<void>((resolve) => first.once('close', () => resolve()));
    first.on('error', () => undefined);
    sockets[0]!.destroy(); // the connection dies
    await lost;
    const second = await dial(pool, env.EGRESS_TEST_SSH_KEY_ENCRYPTED);
    expect((await authListRoundTrip(second)).status).toBe(0);
    expect(events.filter((e) => e.type === 'ready')).toHaveLength(2);
    expect(prompt.asked).toHaveLength(1);
    second.destroy();
  });
});

describe('SSH authentication and connection failures', () => {
  it('lists what was tried when the server refuses every key', async () => {
    const { pool, sshDir } = setup({ env: { SSH_AUTH_SOCK: '/nonexistent/agent.sock' } });
    const stranger = generateKey(sshDir, 'id_other');
    const err = await dial(pool, stranger).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshAuthError);
    const auth = err as SshAuthError;
    expect(auth.attempts).toEqual([
      { method: 'agent', source: '/nonexistent/agent.sock', outcome: 'unavailable', detail: expect.any(String) },
      { method: 'key', source: stranger, outcome: 'rejected' },
    ]);
    expect(auth.message).toContain(`SSH authentication as root@127.0.0.1:${port} failed`);
    expect(auth.message).toContain(`${stranger}: refused by the server`);
  });

  it('says the connection was refused when nothing listens', async () => {
    const { pool } = setup();
    const free = await freePort();
    const err = await dial(pool, env.EGRESS_TEST_SSH_KEY, free).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshConnectError);
    expect((err as Error).message).toBe(
      `cannot reach the SSH server at 127.0.0.1:${free}: connection refused. Is sshd running on 127.0.0.1 and listening on port ${free}?`,
    );
  });

  it('times out against a server that accepts and never speaks', async () => {
    const silent = await listen();
    const { pool } = setup({ connectTimeoutMs: 500 });
    const t0 = performance.now();
    const err = await dial(pool, env.EGRESS_TEST_SSH_KEY, silent.port).catch((e: unknown) => e);
    const ms = performance.now() - t0;
    expect(err).toBeInstanceOf(SshConnectError);
    expect((err as Error).message).toContain('timed out after 0.5 s');
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(3000);
  });

  it('keeps the connect timeout from running while the person types a passphrase', async () => {
    const slow: SshPoolOptions['askPassphrase'] = () =>
      new Promise((resolve) => setTimeout(() => resolve(env.EGRESS_TEST_SSH_PASSPHRASE), 1500));
    const { pool } = setup({ connectTimeoutMs: 1000, askPassphrase: slow });
    const stream = await dial(pool, env.EGRESS_TEST_SSH_KEY_ENCRYPTED);
    expect((await authListRoundTrip(stream)).status).toBe(0);
    stream.destroy();
  });
});

async function freePort(): Promise<number> {
  const s = await listen();
  await s.close();
  return s.port;
}

/** A TCP server on 127.0.0.1 that accepts and says nothing. */
async function listen(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const close = (): Promise<void> => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  cleanups.push(close);
  return { port: address.port, close };
}
