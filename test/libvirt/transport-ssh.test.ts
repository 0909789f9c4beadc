/**
 * The SSH transport against the real sshd on 127.0.0.1 and the real libvirtd socket behind
 * it (test/env/up.sh). Each test has its own HOME and known_hosts; nothing touches ~/.ssh.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import { testEnv } from '../support/env.js';
import {
  HostKeyMismatchError,
  HostKeyUnknownError,
  RemoteSocketError,
  SshDialer,
  formatKnownHostLine,
  hashHostName,
  type SshPoolEvent,
} from '../../electron/transport/index.js';
import { authListRoundTrip, closed, tcpConnectionsTo, useLoopbackSsh } from '../support/transport.js';

const env = testEnv();
/** `setup` is a pool over an isolated HOME, recording its events; `dialer` dials libvirtd as root. */
const { port, pool: setup, dialer } = useLoopbackSsh(env);

const readyEvents = (events: SshPoolEvent[]): Extract<SshPoolEvent, { type: 'ready' }>[] =>
  events.filter((e): e is Extract<SshPoolEvent, { type: 'ready' }> => e.type === 'ready');

describe('SSH dialer against the real sshd and libvirtd', () => {
  it('reaches libvirtd: AUTH_LIST gets a REPLY with serial 1 and status OK, over AES-GCM', async () => {
    const { pool, events } = setup();
    const d = dialer(pool);
    const t0 = performance.now();
    const stream = await d.dial();
    const connectMs = performance.now() - t0;
    const reply = await authListRoundTrip(stream);
    expect(reply.length).toBeGreaterThanOrEqual(28);
    expect(reply).toMatchObject({ program: 0x20008086, version: 1, procedure: 66, type: 1, serial: 1, status: 0 });
    // root on the unix socket: one auth type, NONE.
    expect([...reply.payload]).toEqual([0, 0, 0, 1, 0, 0, 0, 0]);
    const [ready] = readyEvents(events);
    expect(ready?.cipher).toBe('aes128-gcm@openssh.com');
    expect(ready?.hostKeyType).toBe('ssh-ed25519');
    expect(d.description).toBe(`ssh://root@127.0.0.1:${port}${env.EGRESS_TEST_SOCKET}`);
    const t1 = performance.now();
    const second = await d.dial();
    const channelMs = performance.now() - t1;
    await authListRoundTrip(second);
    console.log(
      `[measured] connect+auth+channel ${connectMs.toFixed(1)} ms, channel on the shared connection ${channelMs.toFixed(1)} ms, kex ${ready?.kex}, cipher ${ready?.cipher}`,
    );
    stream.end();
    second.destroy();
    await Promise.all([closed(stream), closed(second)]);
  });

  it('fails an unknown host key with the exact fingerprint, and after trust the dial succeeds', async () => {
    const { home, pool, events } = setup({ knownHosts: null });
    const err = await dialer(pool)
      .dial()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostKeyUnknownError);
    const unknown = err as HostKeyUnknownError;
    expect(unknown.fingerprint).toBe(env.EGRESS_TEST_HOST_KEY_SHA256);
    expect(unknown).toMatchObject({
      host: '127.0.0.1',
      port,
      keyType: 'ssh-ed25519',
      knownHostsFile: home.knownHosts,
      code: 'SSH_HOST_KEY_UNKNOWN',
    });
    expect(unknown.message).toContain(env.EGRESS_TEST_HOST_KEY_SHA256);
    expect(readyEvents(events)).toHaveLength(0);

    await pool.trust(unknown);
    const recorded = readFileSync(home.knownHosts, 'utf8');
    expect(recorded).toBe(`[127.0.0.1]:${port} ssh-ed25519 ${unknown.key.toString('base64')}\n`);
    expect(recorded).toBe(readFileSync(env.EGRESS_TEST_KNOWN_HOSTS, 'utf8').trim() + '\n');
    expect(statSync(home.knownHosts).mode & 0o777).toBe(0o600);

    const stream = await dialer(pool).dial();
    expect((await authListRoundTrip(stream)).status).toBe(0);
    stream.destroy();
  });

  it('refuses a changed host key without opening a channel or authenticating', async () => {
    const { pool, events } = setup({ knownHosts: env.EGRESS_TEST_KNOWN_HOSTS_MISMATCH });
    const err = await dialer(pool)
      .dial()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostKeyMismatchError);
    const mismatch = err as HostKeyMismatchError;
    expect(mismatch.fingerprint).toBe(env.EGRESS_TEST_HOST_KEY_SHA256);
    expect(mismatch.expected).toMatchObject({ line: 1, keyType: 'ssh-ed25519' });
    expect(mismatch.expected.file).toMatch(/known_hosts$/);
    expect(mismatch.message).toContain('CHANGED');
    expect(readyEvents(events)).toHaveLength(0);
    expect(pool.connections()).toEqual([]);
  });

  it('treats a host known only by another key type as changed, as OpenSSH 9 does', async () => {
    const { home, pool } = setup({ knownHosts: null });
    // A key of another type, made now: no key from any machine is written into a test.
    const [, rsa] = ssh2.utils.generateKeyPairSync('rsa', { bits: 2048 }).public.split(' ');
    writeFileSync(home.knownHosts, `[127.0.0.1]:${port} ssh-rsa ${rsa!}\n`);
    const err = await dialer(pool)
      .dial()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostKeyMismatchError);
    expect((err as HostKeyMismatchError).expected.keyType).toBe('ssh-rsa');
  });

  it('trusts a hashed known_hosts entry (HashKnownHosts) for the real server', async () => {
    const { home, pool } = setup({ knownHosts: null });
    const [, type, key] = readFileSync(env.EGRESS_TEST_KNOWN_HOSTS, 'utf8').trim().split(' ');
    writeFileSync(home.knownHosts, `# hashed\n${hashHostName(`[127.0.0.1]:${port}`)} ${type} ${key}\n`);
    const stream = await dialer(pool).dial();
    expect((await authListRoundTrip(stream)).serial).toBe(1);
    stream.destroy();
  });

  it('says that the remote socket is missing, and keeps the connection for other dials', async () => {
    const { pool, events } = setup();
    const missing = join(dirname(env.EGRESS_TEST_SOCKET), 'egress-test-no-such-sock');
    const err = await dialer(pool, { socketPath: missing })
      .dial()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteSocketError);
    expect((err as Error).message).toContain(
      `libvirt's socket ${missing} does not exist on 127.0.0.1: is libvirtd running there?`,
    );
    const stream = await dialer(pool).dial();
    expect((await authListRoundTrip(stream)).status).toBe(0);
    expect(readyEvents(events)).toHaveLength(1);
    stream.destroy();
  });

  it('shares one SSH connection between concurrent and later dials to the host', async () => {
    const { pool, events } = setup();
    const before = tcpConnectionsTo(port);
    const streams = await Promise.all([dialer(pool).dial(), dialer(pool).dial(), dialer(pool).dial()]);
    streams.push(await dialer(pool).dial());
    for (const s of streams) expect((await authListRoundTrip(s)).status).toBe(0);
    expect(events.filter((e) => e.type === 'connecting')).toHaveLength(1);
    expect(readyEvents(events)).toHaveLength(1);
    expect(tcpConnectionsTo(port) - before).toBe(1);
    expect(pool.connections()).toEqual([{ key: `root@127.0.0.1:${port}`, state: 'ready', streams: 4 }]);
    for (const s of streams) s.destroy();
    await Promise.all(streams.map(closed));
    expect(pool.connections()[0]?.streams).toBe(0);
  });

  it('fails open streams and pending dials promptly when the connection dies, then reconnects', async () => {
    const sockets: import('node:net').Socket[] = [];
    const { connectTcp } = await import('../../electron/transport/ssh-connect.js');
    const { pool, events } = setup({
      pool: {
        connectTcp: async (host, p, signal) => {
          const s = (await connectTcp(host, p, signal)) as import('node:net').Socket;
          sockets.push(s);
          return s;
        },
      },
    });
    const open = await dialer(pool).dial();
    expect((await authListRoundTrip(open)).status).toBe(0);
    const openError = new Promise<Error>((resolve) => open.once('error', resolve));
    // Hold the server's answers back so that the next dial's channel request stays pending,
    // then kill the TCP connection under both.
    sockets[0]!.pause();
    const pending = dialer(pool)
      .dial()
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    sockets[0]!.destroy();
    const [streamErr, dialErr] = await Promise.all([openError, pending]);
    const failMs = performance.now() - t0;
    expect(streamErr.name).toBe('SshConnectionLostError');
    expect(dialErr).toBeInstanceOf(Error);
    expect((dialErr as Error).name).toBe('SshConnectionLostError');
    expect(failMs).toBeLessThan(1000);
    await closed(open);

    const again = await dialer(pool).dial();
    expect((await authListRoundTrip(again)).status).toBe(0);
    expect(readyEvents(events)).toHaveLength(2);
    expect(sockets).toHaveLength(2);
    again.destroy();
  });

  it('notices a host that stops answering through SSH keepalives', async () => {
    const sockets: import('node:net').Socket[] = [];
    const { connectTcp } = await import('../../electron/transport/ssh-connect.js');
    const { pool } = setup({
      pool: {
        keepaliveIntervalMs: 200,
        keepaliveCountMax: 2,
        connectTcp: async (host, p, signal) => {
          const s = (await connectTcp(host, p, signal)) as import('node:net').Socket;
          sockets.push(s);
          return s;
        },
      },
    });
    const stream = await dialer(pool).dial();
    expect((await authListRoundTrip(stream)).status).toBe(0);
    const failed = new Promise<Error>((resolve) => stream.once('error', resolve));
    const t0 = performance.now();
    sockets[0]!.pause(); // as if the host froze: nothing it sends arrives any more
    const err = await failed;
    expect(err.name).toBe('SshConnectionLostError');
    expect(err.message).toContain('Keepalive timeout');
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('honours ssh_config (HostName, Port, User, IdentityFile) and tunnels through a ProxyJump host', async () => {
    const { home, pool, events } = setup();
    writeFileSync(
      `${home.sshDir}/config`,
      [
        'Host libvirt-behind-bastion',
        '  HostName 127.0.0.1',
        `  Port ${port}`,
        '  User root',
        `  IdentityFile ${env.EGRESS_TEST_SSH_KEY}`,
        '  ProxyJump bastion',
        'Host bastion',
        '  HostName 127.0.0.1',
        `  Port ${port}`,
        '  User root',
        `  IdentityFile ${env.EGRESS_TEST_SSH_KEY}`,
        '',
      ].join('\n'),
    );
    const d = new SshDialer({ address: 'libvirt-behind-bastion', socketPath: env.EGRESS_TEST_SOCKET }, pool);
    const stream = await d.dial();
    expect((await authListRoundTrip(stream)).status).toBe(0);
    expect(readyEvents(events).map((e) => e.key)).toEqual([
      `root@127.0.0.1:${port}`,
      `root@127.0.0.1:${port} > root@127.0.0.1:${port}`,
    ]);
    expect(d.description).toBe(`ssh://root@127.0.0.1:${port}${env.EGRESS_TEST_SOCKET} (via 127.0.0.1)`);
    stream.destroy();
  });

  it('rejects an aborted dial and honours an abort while the dial is in flight', async () => {
    const { pool } = setup();
    const ac = new AbortController();
    ac.abort();
    await expect(dialer(pool).dial({ signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    const ac2 = new AbortController();
    const p = dialer(pool).dial({ signal: ac2.signal });
    ac2.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    // The shared attempt went on: the next dial uses it.
    const stream = await dialer(pool).dial();
    expect((await authListRoundTrip(stream)).status).toBe(0);
    stream.destroy();
  });

  it('close() ends the connection, destroys its streams and refuses new dials', async () => {
    const { pool } = setup();
    const stream = await dialer(pool).dial();
    await authListRoundTrip(stream);
    await pool.close();
    await closed(stream);
    expect(pool.connections()).toEqual([]);
    await expect(dialer(pool).dial()).rejects.toMatchObject({ name: 'SshConnectionLostError' });
  });

  it('records a trusted key with formatKnownHostLine in [host]:port form', () => {
    // The key this run's sshd was born with (test/env/up.sh), never one from another machine.
    const [type, blob] = readFileSync(env.EGRESS_TEST_HOST_KEY_PUB, 'utf8').trim().split(/\s+/);
    expect(type).toBe('ssh-ed25519');
    expect(formatKnownHostLine('127.0.0.1', port, type!, Buffer.from(blob!, 'base64'))).toBe(
      readFileSync(env.EGRESS_TEST_KNOWN_HOSTS, 'utf8').trim(),
    );
  });
});
