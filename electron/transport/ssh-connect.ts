/**
 * One SSH connection, from TCP (or a tunnel through a jump host) to an authenticated ssh2
 * Client: host-key verification against known_hosts, public-key authentication, a connect
 * timeout that does not count the time a person takes to type a passphrase, and every failure
 * mapped to a typed error.
 */
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { Client, NegotiatedAlgorithms, ParsedKey, VerifyCallback } from 'ssh2';
import { abortReason, errnoCode } from './errors.js';
import {
  loadHostKeys,
  verifyHostKey,
  type HostKeyFiles,
  type HostKeyMismatchError,
  type HostKeyUnknownError,
} from './host-key.js';
import { keyTypeOf, type KnownHosts } from './known-hosts.js';
import { cipherPreference, hostKeyPreference } from './ssh-algorithms.js';
import { AuthSession, readIdentities, type AskPassphrase, type Identity } from './ssh-auth.js';
import type { SshHostSettings } from './ssh-config.js';
import { SshAuthError, SshConfigError, SshConnectError, sshEndpoint, type SshAuthAttempt } from './ssh-errors.js';
import { messageOf } from '../../shared/errors.js';

/** Opens the TCP connection to an SSH server. Injectable so that tests can hold the socket. */
export type ConnectTcp = (host: string, port: number, signal: AbortSignal) => Promise<Duplex>;

/** What {@link connectSsh} needs besides the host's settings. */
export interface ConnectSshOptions {
  /** A tunnel through the jump host; when absent, a TCP connection is made. */
  sock?: Duplex;
  connectTcp?: ConnectTcp;
  askPassphrase?: AskPassphrase;
  keyCache: Map<string, ParsedKey>;
  /** TCP connect + handshake + authentication, excluding time spent in `askPassphrase`. */
  timeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  signal?: AbortSignal;
}

/** An authenticated connection and what was negotiated. */
export interface SshSession {
  client: Client;
  negotiated: NegotiatedAlgorithms | undefined;
}

/** Connects and authenticates. Rejects with a typed error; never leaves a half-open client behind. */
export async function connectSsh(settings: SshHostSettings, options: ConnectSshOptions): Promise<SshSession> {
  const { hostName, port, user } = settings;
  if (settings.proxyCommand !== undefined) {
    options.sock?.destroy();
    throw new SshConfigError(
      `ssh_config reaches ${settings.alias} through ProxyCommand (${settings.proxyCommand}), which Egress Desk does not run: use ProxyJump instead`,
    );
  }
  const files: HostKeyFiles = {
    hostKeyName: settings.hostKeyName,
    port: settings.hostKeyPort,
    userFiles: settings.userKnownHostsFiles,
    globalFiles: settings.globalKnownHostsFiles,
    hash: settings.hashKnownHosts,
  };
  const earlier: SshAuthAttempt[] = [];
  let known: KnownHosts;
  let identities: Identity[];
  try {
    known = await loadHostKeys(files);
    // Only the app's own identityFile must exist (like ssh -i); ssh_config's are skipped when absent.
    const required = new Set(settings.identities.filter((i) => i.origin.kind === 'app').map((i) => i.path));
    identities = await readIdentities(settings.identityFiles, required, earlier);
  } catch (err) {
    options.sock?.destroy();
    throw err;
  }

  const deadline = new Deadline(options.timeoutMs);
  const local = new AbortController();
  const onAbort = (): void => local.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  deadline.onExpire = () =>
    local.abort(new SshConnectError(hostName, port, `timed out after ${formatSeconds(options.timeoutMs)}`));
  try {
    if (local.signal.aborted) throw abortReason(local.signal);
    const sock = options.sock ?? (await (options.connectTcp ?? connectTcp)(hostName, port, local.signal));
    const auth = new AuthSession(
      {
        user,
        endpoint: sshEndpoint(user, hostName, port),
        agentSocket: settings.agentSocket,
        identitiesOnly: settings.identitiesOnly,
        identities,
        askPassphrase: options.askPassphrase,
        keyCache: options.keyCache,
        suspend: (work) => deadline.suspend(work),
      },
      earlier,
    );
    return await handshake(
      settings,
      sock,
      auth,
      known.keyTypesFor(settings.hostKeyName, settings.hostKeyPort),
      (keyType, key) => verifyHostKey(known, files, keyType, key),
      options,
      local.signal,
    );
  } catch (err) {
    options.sock?.destroy(); // a tunnel handed in is ours to close on failure
    throw err;
  } finally {
    deadline.clear();
    options.signal?.removeEventListener('abort', onAbort);
  }
}

type Verifier = (
  keyType: string,
  key: Buffer,
) => { ok: true } | { ok: false; error: HostKeyUnknownError | HostKeyMismatchError };

function handshake(
  settings: SshHostSettings,
  sock: Duplex,
  auth: AuthSession,
  knownKeyTypes: string[],
  verify: Verifier,
  options: ConnectSshOptions,
  signal: AbortSignal,
): Promise<SshSession> {
  const { hostName, port, user } = settings;
  const client = new ssh2.Client();
  return new Promise<SshSession>((resolve, reject) => {
    let hostKeyError: Error | undefined;
    let negotiated: NegotiatedAlgorithms | undefined;
    let authStarted = false;
    let settled = false;
    const finish = (err: Error | undefined): void => {
      if (settled) return;
      settled = true;
      client.off('ready', onReady);
      client.off('close', onClose);
      signal.removeEventListener('abort', onAbort);
      // onError stays attached (a no-op once settled): an 'error' with no listener would crash the process.
      if (err) {
        client.destroy();
        sock.destroy();
        reject(err);
      } else {
        resolve({ client, negotiated });
      }
    };
    const authError = (serverMessage?: string): SshAuthError =>
      new SshAuthError(user, hostName, port, auth.attempts, serverMessage ? { serverMessage } : undefined);
    const onReady = (): void => finish(undefined);
    const onError = (err: Error & { level?: string; code?: unknown }): void => {
      // An agent that fails to sign, or a key the person skipped: ssh2 goes on to the next method.
      if (err.level === 'agent') return;
      if (hostKeyError) return finish(hostKeyError);
      if (err.level === 'client-authentication') {
        if (err.message.startsWith('All configured authentication methods failed')) return finish(authError());
        return; // a key that could not sign: ssh2 tries the next one
      }
      // A DISCONNECT during authentication (e.g. "Too many authentication failures").
      if (authStarted && typeof err.code === 'number') return finish(authError(err.message));
      finish(mapConnectError(hostName, port, err));
    };
    const onClose = (): void => {
      finish(
        hostKeyError ??
          (authStarted
            ? authError('the server closed the connection')
            : new SshConnectError(hostName, port, 'the server closed the connection during the SSH handshake')),
      );
    };
    const onAbort = (): void => finish(abortReason(signal));
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('close', onClose);
    client.once('handshake', (n: NegotiatedAlgorithms) => {
      negotiated = n;
      authStarted = true;
    });
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      client.connect({
        sock,
        username: user,
        hostVerifier: (key: Buffer, done: VerifyCallback) => {
          try {
            const verdict = verify(keyTypeOf(key), key);
            if (!verdict.ok) hostKeyError = verdict.error;
            done(verdict.ok);
          } catch (err) {
            hostKeyError = err instanceof Error ? err : new Error(String(err));
            done(false);
          }
        },
        authHandler: auth.handler,
        algorithms: { cipher: cipherPreference(), serverHostKey: hostKeyPreference(knownKeyTypes) },
        keepaliveInterval: settings.keepaliveIntervalMs ?? options.keepaliveIntervalMs,
        keepaliveCountMax: settings.keepaliveCountMax ?? options.keepaliveCountMax,
        readyTimeout: 0, // ours (Deadline) pauses while a passphrase is asked for; ssh2's cannot
      });
    } catch (err) {
      finish(new SshConnectError(hostName, port, messageOf(err), { cause: err }));
    }
    if (signal.aborted) onAbort();
  });
}

/** The default {@link ConnectTcp}: a TCP socket with Nagle off (RPC latency) and TCP keepalive on. */
export function connectTcp(host: string, port: number, signal: AbortSignal): Promise<Duplex> {
  return new Promise<Duplex>((resolve, reject) => {
    const socket = netConnect({ host, port });
    const cleanup = (): void => {
      socket.off('connect', onConnect);
      socket.off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const onConnect = (): void => {
      cleanup();
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      resolve(socket);
    };
    const onError = (err: Error): void => {
      cleanup();
      socket.destroy();
      reject(mapConnectError(host, port, err));
    };
    const onAbort = (): void => {
      cleanup();
      socket.destroy();
      reject(abortReason(signal));
    };
    socket.once('connect', onConnect);
    socket.once('error', onError);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Maps a socket or handshake error to an {@link SshConnectError} that says what to check. */
export function mapConnectError(host: string, port: number, err: Error): SshConnectError {
  switch (errnoCode(err)) {
    case 'ECONNREFUSED':
      return new SshConnectError(host, port, 'connection refused', {
        cause: err,
        hint: `Is sshd running on ${host} and listening on port ${port}?`,
      });
    case 'ETIMEDOUT':
      return new SshConnectError(host, port, 'the connection timed out', {
        cause: err,
        hint: `Is the host up, and does a firewall let port ${port} through?`,
      });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new SshConnectError(host, port, 'no route to the host', {
        cause: err,
        hint: 'Is the host up and on a network this machine reaches?',
      });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new SshConnectError(host, port, `the name ${host} does not resolve`, {
        cause: err,
        hint: 'Check the address, or add a HostName for it in ~/.ssh/config',
      });
    case 'ECONNRESET':
    case 'EPIPE':
      return new SshConnectError(host, port, 'the server reset the connection', { cause: err });
    default:
      return new SshConnectError(host, port, messageOf(err), { cause: err });
  }
}

/** `20 s`, `0.5 s`. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/** A timeout that can be suspended while a person is being asked something. */
class Deadline {
  onExpire: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private remaining: number;
  private startedAt = 0;
  private suspended = 0;
  private cleared = false;

  constructor(ms: number) {
    this.remaining = ms;
    this.start();
  }

  async suspend<T>(work: Promise<T>): Promise<T> {
    if (this.suspended++ === 0) this.stop();
    try {
      return await work;
    } finally {
      if (--this.suspended === 0) this.start();
    }
  }

  clear(): void {
    this.cleared = true;
    this.stop();
  }

  private start(): void {
    if (this.cleared) return;
    this.startedAt = Date.now();
    this.timer = setTimeout(() => this.onExpire?.(), Math.max(0, this.remaining));
  }

  private stop(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remaining -= Date.now() - this.startedAt;
  }
}
