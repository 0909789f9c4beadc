/**
 * One SSH connection per host, shared by every stream to it.
 *
 * A dial opens a new channel on the host's connection instead of a new connection (the
 * complaint against virt-manager: one console opened 4–8 connections, each with its own
 * prompts). Concurrent dials while the connection is being made wait for the same attempt.
 * When a connection dies — the server closed it, keepalive gave up, the jump host went away —
 * every stream on it fails at once with {@link SshConnectionLostError}, and the next dial
 * connects again. Opening one channel on a connection (its timeout, its abort, counting the
 * streams) is ssh-pool-channel.ts.
 */
import { homedir, hostname, userInfo } from 'node:os';
import type { Duplex } from 'node:stream';
import type { ParsedKey } from 'ssh2';
import { abortReason } from './errors.js';
import { trustHostKey, type HostKeyUnknownError } from './host-key.js';
import type { AskPassphrase } from './ssh-auth.js';
import { ExecCollector, type ExecResult } from './ssh-exec.js';
import { resolveSshHost, type SshHostSettings, type SshLocalContext, type SshTarget } from './ssh-config.js';
import { loadSshConfig, readServices } from './ssh-config-load.js';
import { connectSsh, type ConnectTcp } from './ssh-connect.js';
import { type LiveConnection, type OpenChannel, StaleConnection, openChannelOn } from './ssh-pool-channel.js';
import { RemoteSocketError, SshConnectError, SshConnectionLostError } from './ssh-errors.js';
import { messageOf } from '../../shared/errors.js';
import { bracketHost } from '../../shared/net.js';

/** What the pool reports as connections come and go (for host status and logs; never secrets). */
export type SshPoolEvent =
  | { type: 'connecting'; key: string }
  | { type: 'ready'; key: string; cipher: string | undefined; hostKeyType: string | undefined; kex: string | undefined }
  | { type: 'failed'; key: string; error: Error }
  | { type: 'closed'; key: string; reason: string | undefined };

/** The pool's collaborators and tunables; every one has a default fit for the app. */
export interface SshPoolOptions {
  homeDir?: string;
  localUser?: string;
  /** For SSH_AUTH_SOCK and `${VAR}` in ssh_config paths. Default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default ~/.ssh/config; null reads none. */
  userConfigPath?: string | null;
  /** Default /etc/ssh/ssh_config; null reads none. */
  systemConfigPath?: string | null;
  /** known_hosts files where ssh_config names none (the first receives trusted keys). Default ~/.ssh/known_hosts, ~/.ssh/known_hosts2. */
  userKnownHostsFiles?: readonly string[];
  /** Read-only known_hosts files where ssh_config names none. Default /etc/ssh/ssh_known_hosts{,2}; [] reads none. */
  globalKnownHostsFiles?: readonly string[];
  /** Asked when an encrypted key is needed. Without it, encrypted keys are skipped. */
  askPassphrase?: AskPassphrase;
  connectTcp?: ConnectTcp;
  /** TCP + handshake + authentication, and each channel open. Default 20 s (ssh_config ConnectTimeout wins). */
  connectTimeoutMs?: number;
  /** SSH keepalive period. Default 10 s (ssh_config ServerAliveInterval wins). */
  keepaliveIntervalMs?: number;
  /** Unanswered keepalives before the connection is declared dead. Default 3. */
  keepaliveCountMax?: number;
  onEvent?: (event: SshPoolEvent) => void;
}

interface Entry {
  key: string;
  settings: SshHostSettings;
  attempt: Promise<LiveConnection>;
  live: LiveConnection | undefined;
  /** Cancels the attempt (close() while connecting, perhaps waiting on a passphrase). */
  abort: AbortController;
}

/** The pool key: `user@host:port`, prefixed by the jump chain it is reached through. */
export function connectionKey(s: SshHostSettings): string {
  const self = `${s.user}@${bracketHost(s.hostName)}:${s.port}`;
  return s.jump ? `${connectionKey(s.jump)} > ${self}` : self;
}

/** SSH connections to libvirt hosts, one per host, reused by every dial. */
export class SshConnectionPool {
  private readonly entries = new Map<string, Entry>();
  private readonly keyCache = new Map<string, ParsedKey>();
  private readonly local: SshLocalContext;
  private services: Promise<Map<string, number>> | undefined;
  private closed = false;

  constructor(private readonly options: SshPoolOptions = {}) {
    this.local = {
      homeDir: options.homeDir ?? homedir(),
      localUser: options.localUser ?? localUserName(),
      env: options.env ?? process.env,
      localHostName: hostname(),
      ...(process.getuid ? { uid: process.getuid() } : {}),
      ...(options.userKnownHostsFiles ? { userKnownHostsFiles: options.userKnownHostsFiles } : {}),
      ...(options.globalKnownHostsFiles ? { globalKnownHostsFiles: options.globalKnownHostsFiles } : {}),
    };
  }

  /** The home directory `~` stands for in ssh_config (shown as `~` in settings views). */
  get homeDir(): string {
    return this.local.homeDir;
  }

  /** A host's effective settings, read afresh from ssh_config (so edits apply on the next connection). */
  async resolve(target: SshTarget): Promise<SshHostSettings> {
    const sources = await loadSshConfig({
      homeDir: this.local.homeDir,
      userConfigPath: this.options.userConfigPath,
      systemConfigPath: this.options.systemConfigPath,
    });
    this.services ??= readServices();
    return resolveSshHost(target, sources, { ...this.local, services: await this.services });
  }

  /** Opens a stream to a unix socket on the host (libvirt's), over the host's shared connection. */
  openStreamLocal(settings: SshHostSettings, socketPath: string, signal?: AbortSignal): Promise<Duplex> {
    return this.openChannel(
      settings,
      signal,
      (client, cb) => client.openssh_forwardOutStreamLocal(socketPath, cb),
      (err) => {
        return new RemoteSocketError(settings.alias, socketPath, channelFailureReason(err), {
          cause: err,
          user: settings.user,
        });
      },
    );
  }

  /** Opens a TCP stream from the host to `host:port` (a guest's proxy port, say), over the host's shared connection. */
  openTcp(settings: SshHostSettings, host: string, port: number, signal?: AbortSignal): Promise<Duplex> {
    return this.openChannel(
      settings,
      signal,
      (client, cb) => client.forwardOut('127.0.0.1', 0, host, port, cb),
      (err) => {
        return new SshConnectError(
          host,
          port,
          `${settings.alias} could not open a forwarded connection to it: ${messageOf(err)}`,
          { cause: err },
        );
      },
    );
  }

  /**
   * Runs `command` on the host through an exec channel of the host's shared connection and
   * collects what it prints (see ssh-exec.ts). The host's login shell reads the command line,
   * so callers quote every argument they pass. Resolves with the exit status however the
   * command ended; rejects only when no channel opens, the connection is lost, or `signal`
   * fires (which closes the channel: the host's shell gets SIGHUP).
   */
  async exec(settings: SshHostSettings, command: string, signal?: AbortSignal): Promise<ExecResult> {
    const collector = new ExecCollector();
    const stream = await this.openChannel(
      settings,
      signal,
      (client, cb) =>
        client.exec(command, (err, channel) => {
          if (!err) collector.watch(channel);
          cb(err, channel);
        }),
      (err) =>
        new SshConnectError(
          settings.hostName,
          settings.port,
          `${settings.alias} refused to run a command: ${messageOf(err)}`,
          { cause: err },
        ),
    );
    return collector.collect(stream, signal);
  }

  /** Records the host key of a {@link HostKeyUnknownError} the person confirmed; the next dial succeeds. */
  async trust(error: HostKeyUnknownError): Promise<void> {
    await trustHostKey(error);
  }

  /**
   * Adds a key the person unlocked (see decryptKeyFile) for the identity file `path`: the
   * next connection that needs that file uses it without asking. Dropped on close().
   */
  addKey(path: string, key: ParsedKey): void {
    this.keyCache.set(path, key);
  }

  /** The connections currently held, for status displays and tests. */
  connections(): Array<{ key: string; state: 'connecting' | 'ready'; streams: number }> {
    return [...this.entries.values()].map((e) => ({
      key: e.key,
      state: e.live ? 'ready' : 'connecting',
      streams: e.live?.streams.size ?? 0,
    }));
  }

  /** Ends every connection (their streams are destroyed) and refuses further dials. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    this.keyCache.clear();
    await Promise.all(
      entries.map(async (e) => {
        const live = e.live;
        if (!live) {
          e.abort.abort(
            new SshConnectionLostError(e.settings.hostName, e.settings.port, 'the SSH connection pool was closed'),
          );
          return;
        }
        if (live.dead) return;
        live.reason = 'the SSH connection pool was closed';
        for (const stream of live.streams) stream.destroy();
        const closedEvent = new Promise<void>((resolve) => live.client.once('close', () => resolve()));
        live.client.end();
        // A server that never answers the disconnect must not hold close() up.
        const timer = setTimeout(() => live.client.destroy(), 2_000);
        await closedEvent;
        clearTimeout(timer);
      }),
    );
  }

  /** The host's live connection, connecting (once, however many callers wait) when there is none. */
  private connection(settings: SshHostSettings, signal?: AbortSignal): Promise<LiveConnection> {
    if (this.closed)
      return Promise.reject(
        new SshConnectionLostError(settings.hostName, settings.port, 'the SSH connection pool was closed'),
      );
    const key = connectionKey(settings);
    let entry = this.entries.get(key);
    if (!entry || entry.live?.dead) {
      // connect() needs the entry to know, later, whether it is still the current one.
      const created = { key, settings, live: undefined, abort: new AbortController() } as Entry;
      created.attempt = this.connect(created);
      // The attempt is shared; a caller that gives up must not leave it unhandled.
      created.attempt.catch(() => undefined);
      this.entries.set(key, created);
      entry = created;
    }
    return withSignal(entry.attempt, signal);
  }

  private async connect(entry: Entry): Promise<LiveConnection> {
    const { settings, key } = entry;
    this.emit({ type: 'connecting', key });
    try {
      // The jump host's own connection is pooled too: two hosts behind one bastion share it.
      const sock = settings.jump
        ? await this.openTcp(settings.jump, settings.hostName, settings.port, entry.abort.signal)
        : undefined;
      const { client, negotiated } = await connectSsh(settings, {
        ...(sock ? { sock } : {}),
        ...(this.options.connectTcp ? { connectTcp: this.options.connectTcp } : {}),
        ...(this.options.askPassphrase ? { askPassphrase: this.options.askPassphrase } : {}),
        keyCache: this.keyCache,
        timeoutMs: settings.connectTimeoutMs ?? this.options.connectTimeoutMs ?? 20_000,
        keepaliveIntervalMs: this.options.keepaliveIntervalMs ?? 10_000,
        keepaliveCountMax: this.options.keepaliveCountMax ?? 3,
        signal: entry.abort.signal,
      });
      const live: LiveConnection = { client, streams: new Set(), dead: false, reason: undefined };
      client.on('error', (err: Error) => {
        live.reason ??= messageOf(err);
      });
      client.on('close', () => this.onClosed(entry, live));
      if (this.closed) {
        client.end();
        throw new SshConnectionLostError(settings.hostName, settings.port, 'the SSH connection pool was closed');
      }
      entry.live = live;
      this.emit({
        type: 'ready',
        key,
        cipher: negotiated?.cs.cipher,
        hostKeyType: negotiated?.serverHostKey,
        kex: negotiated?.kex,
      });
      return live;
    } catch (err) {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      this.emit({ type: 'failed', key, error: err instanceof Error ? err : new Error(String(err)) });
      throw err;
    }
  }

  private onClosed(entry: Entry, live: LiveConnection): void {
    live.dead = true;
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    const reason = live.reason ?? 'the server closed it';
    for (const stream of live.streams)
      stream.destroy(new SshConnectionLostError(entry.settings.hostName, entry.settings.port, reason));
    live.streams.clear();
    this.emit({ type: 'closed', key: entry.key, reason });
  }

  /** Opens one channel on the host's connection, reconnecting once if the connection turns out to be dead. */
  private async openChannel(
    settings: SshHostSettings,
    signal: AbortSignal | undefined,
    open: OpenChannel,
    openError: (err: Error) => Error,
  ): Promise<Duplex> {
    const timeoutMs = settings.connectTimeoutMs ?? this.options.connectTimeoutMs ?? 20_000;
    for (let tries = 0; ; tries++) {
      const live = await this.connection(settings, signal);
      try {
        return await openChannelOn(live, settings, timeoutMs, signal, open, openError);
      } catch (err) {
        // The connection died between being handed out and the channel request: connect again, once.
        if (err instanceof StaleConnection && tries === 0) continue;
        if (err instanceof StaleConnection)
          throw new SshConnectionLostError(settings.hostName, settings.port, live.reason ?? 'closed');
        throw err;
      }
    }
  }

  private emit(event: SshPoolEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // a listener's failure is not the connection's
    }
  }
}

/** The RFC 4254 reason code ssh2 attaches to a channel-open failure. */
function channelFailureReason(err: Error): number | undefined {
  const reason: unknown = (err as Error & { reason?: unknown }).reason;
  return typeof reason === 'number' ? reason : undefined;
}

function withSignal<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** This process's user name from the passwd database, else $USER/$LOGNAME, else `fallback` (ssh's default login: root). */
export function localUserName(fallback = 'root'): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.LOGNAME ?? fallback;
  }
}
