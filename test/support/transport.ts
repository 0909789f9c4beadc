/**
 * Helpers for the transport's integration tests (test/libvirt/transport*.test.ts): an isolated
 * HOME per test, a raw libvirt AUTH_LIST probe that needs no RPC client, and a count of this
 * process's TCP connections to the test sshd, an SSH pool that reads nothing of this
 * machine, per-test cleanup, and both together for the test sshd on 127.0.0.1 ({@link useLoopbackSsh}).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterEach } from 'vitest';
import {
  SshConnectionPool,
  SshDialer,
  type SshPoolEvent,
  type SshPoolOptions,
} from '../../electron/transport/index.js';
import type { TestEnv } from './env.js';
import { tempDir } from './temp-dir.js';

/** A throwaway HOME with an empty ~/.ssh (0700); `known_hosts` copied in when given. */
export interface TempHome {
  home: string;
  sshDir: string;
  knownHosts: string;
  remove(): void;
}

export function tempHome(knownHostsFrom?: string): TempHome {
  const home = tempDir('egress-transport-');
  const sshDir = join(home, '.ssh');
  mkdirSync(sshDir, { mode: 0o700 });
  const knownHosts = join(sshDir, 'known_hosts');
  if (knownHostsFrom) copyFileSync(knownHostsFrom, knownHosts);
  return { home, sshDir, knownHosts, remove: () => rmSync(home, { recursive: true, force: true }) };
}

const REMOTE_PROGRAM = 0x20008086;
const PROC_AUTH_LIST = 66;

/** A decoded reply header. */
export interface ReplyHeader {
  length: number;
  program: number;
  version: number;
  procedure: number;
  type: number;
  serial: number;
  status: number;
  payload: Buffer;
}

/** The 28-byte AUTH_LIST call: length, program, version 1, procedure 66, type CALL, serial, status OK. */
export function authListCall(serial = 1): Buffer {
  const b = Buffer.alloc(28);
  b.writeUInt32BE(28, 0);
  b.writeUInt32BE(REMOTE_PROGRAM, 4);
  b.writeUInt32BE(1, 8);
  b.writeInt32BE(PROC_AUTH_LIST, 12);
  b.writeInt32BE(0, 16);
  b.writeUInt32BE(serial, 20);
  b.writeInt32BE(0, 24);
  return b;
}

/** Sends AUTH_LIST on a fresh stream and reads one whole reply (rejects if the stream ends first or after `timeoutMs`). */
export function authListRoundTrip(stream: Duplex, timeoutMs = 10_000): Promise<ReplyHeader> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => done(new Error(`no AUTH_LIST reply within ${timeoutMs} ms`)), timeoutMs);
    const done = (err: Error | undefined, reply?: ReplyHeader): void => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('error', onError);
      stream.off('end', onEnd);
      if (err) reject(err);
      else resolve(reply!);
    };
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 4) return;
      const length = buf.readUInt32BE(0);
      if (buf.length < length) return;
      done(undefined, {
        length,
        program: buf.readUInt32BE(4),
        version: buf.readUInt32BE(8),
        procedure: buf.readInt32BE(12),
        type: buf.readInt32BE(16),
        serial: buf.readUInt32BE(20),
        status: buf.readInt32BE(24),
        payload: buf.subarray(28, length),
      });
    };
    const onError = (err: Error): void => done(err);
    const onEnd = (): void => done(new Error('the stream ended before the reply'));
    stream.on('data', onData);
    stream.once('error', onError);
    stream.once('end', onEnd);
    stream.write(authListCall());
  });
}

/** Resolves once the stream has emitted 'close' (`closed` turns true a tick before the event). */
export function closed(stream: Duplex): Promise<void> {
  if (stream.closed) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => stream.once('close', () => resolve()));
}

/** This process's established TCP connections to 127.0.0.1:`port`, from `ss -tnp`. */
export function tcpConnectionsTo(port: number): number {
  const out = execFileSync('ss', ['-Htnp', 'state', 'established', 'dst', `127.0.0.1:${port}`], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(`pid=${process.pid},`)).length;
}

/** Generates a throwaway key pair with ssh-keygen (`passphrase` '' for none); returns the private key's path. */
export function generateKey(dir: string, name: string, passphrase = ''): string {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', name, '-f', path], { stdio: 'ignore' });
  return path;
}

/**
 * Cleanups registered during a test, run newest first after it (passed or not). Call once
 * at the top of a test file; push closers onto the returned list.
 */
export function useCleanups(): Array<() => Promise<void> | void> {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return cleanups;
}

/**
 * An SSH pool over a fresh {@link tempHome} (`known_hosts` copied from `knownHostsFrom`),
 * reading no system ssh_config and no global known_hosts, recording its events; `cleanups`
 * closes it and removes the home after the test.
 */
export function isolatedPool(
  cleanups: Array<() => Promise<void> | void>,
  knownHostsFrom: string | undefined,
  options: Partial<SshPoolOptions> = {},
): { home: TempHome; pool: SshConnectionPool; events: SshPoolEvent[] } {
  const home = tempHome(knownHostsFrom);
  const events: SshPoolEvent[] = [];
  const pool = new SshConnectionPool({
    homeDir: home.home,
    localUser: 'root',
    env: {},
    systemConfigPath: null,
    globalKnownHostsFiles: [],
    onEvent: (e) => events.push(e),
    ...options,
  });
  cleanups.push(
    () => home.remove(),
    () => pool.close(),
  );
  return { home, pool, events };
}

/** What {@link useLoopbackSsh} gives a transport test file. */
export interface LoopbackSsh {
  /** The test sshd's port on 127.0.0.1. */
  port: number;
  /** The file's {@link useCleanups} list: run after each test, newest first. */
  cleanups: Array<() => Promise<void> | void>;
  /**
   * An {@link isolatedPool} closed after the test: `known_hosts` is the test environment's
   * (which trusts the test sshd) unless `knownHosts` names another, or is `null` for none.
   */
  pool(options?: { knownHosts?: string | null; pool?: Partial<SshPoolOptions> }): {
    home: TempHome;
    pool: SshConnectionPool;
    events: SshPoolEvent[];
  };
  /** A dialer, as root on the test sshd, to libvirtd's socket behind it, with the test key unless told otherwise. */
  dialer(
    pool: SshConnectionPool,
    extra?: { identityFile?: string; socketPath?: string; address?: string; sshPort?: number },
  ): SshDialer;
}

/**
 * The setup every transport test file against the test sshd (test/env/up.sh) starts with:
 * its cleanups registered, and pools and dialers for 127.0.0.1 as root. Call once at the
 * top of the file.
 */
export function useLoopbackSsh(env: TestEnv): LoopbackSsh {
  const port = Number(env.EGRESS_TEST_SSH_PORT);
  const cleanups = useCleanups();
  return {
    port,
    cleanups,
    pool: (options = {}) =>
      isolatedPool(
        cleanups,
        options.knownHosts === null ? undefined : (options.knownHosts ?? env.EGRESS_TEST_KNOWN_HOSTS),
        options.pool,
      ),
    dialer: (pool, extra = {}) =>
      new SshDialer(
        {
          address: extra.address ?? '127.0.0.1',
          sshUser: 'root',
          sshPort: extra.sshPort ?? port,
          identityFile: extra.identityFile ?? env.EGRESS_TEST_SSH_KEY,
          socketPath: extra.socketPath ?? env.EGRESS_TEST_SOCKET,
        },
        pool,
      ),
  };
}
