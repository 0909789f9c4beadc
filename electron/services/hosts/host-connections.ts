/**
 * One libvirt connection per configured host, opened on first use and shared by every
 * caller, with each host's state (connecting, connected, auth-needed, host-key-unknown,
 * error) reported as it changes. SSH hosts share the transport's one SSH connection per
 * host, so a host costs one TCP connection however many libvirt streams it carries.
 */
import { EventEmitter } from 'node:events';
import type { ResolvedKVMHost } from '../../../shared/config.js';
import type { HostState, HostStatus } from '../../../shared/hosts.js';
import { ConnectionClosedError, LibvirtClient } from '../../libvirt/index.js';
import { HostAccessDeniedError, hostAccessError } from './host-access.js';
import {
  DEFAULT_SOCKET_PATH,
  type Dialer,
  HostKeyMismatchError,
  HostKeyUnknownError,
  SshAuthError,
  type SshConnectionPool,
  SshDialer,
  TransportError,
  dialerForHost,
} from '../../transport/index.js';
import { formatSshWarning } from './ssh-settings-view.js';
import { messageOf } from '../../../shared/errors.js';

/** The hypervisor URI for a host: the system daemon's QEMU driver, or the daemon's own choice on another socket (a session daemon). */
export function uriForHost(host: ResolvedKVMHost): string {
  return host.socketPath === DEFAULT_SOCKET_PATH || host.socketPath === '/run/libvirt/libvirt-sock'
    ? 'qemu:///system'
    : '';
}

export interface HostConnectionsOptions {
  hosts: readonly ResolvedKVMHost[];
  sshPool: SshConnectionPool;
  /** Overrides the hypervisor URI (tests use libvirt's test driver, `test:///default`). */
  uri?: (host: ResolvedKVMHost) => string;
  /** Bound on dialling plus the handshake. Default 30 s. */
  connectTimeoutMs?: number;
  /** Builds a host's dialer; the transport's by default. */
  dialer?: (host: ResolvedKVMHost) => Dialer;
  /**
   * Called when a host's daemon asks for polkit authorisation (AUTH_POLKIT: a non-root user on
   * a system socket) before it is asked: a UI can say "waiting for authorisation", the CLI logs it.
   */
  onPolkit?: (host: string) => void;
  /** Where a remembered passphrase would go, shown with a passphrase request (see Passphrases.storeInfo). */
  secretStore?: () => { available: boolean; description: string };
  /**
   * Reopen a lost connection by itself, with backoff (the app, which watches hosts for as
   * long as it runs). Without it a lost connection is reopened on next use (the CLI).
   */
  reconnect?: { firstDelayMs?: number; maxDelayMs?: number };
}

interface Entry {
  host: ResolvedKVMHost;
  dialer: Dialer;
  status: HostStatus;
  client?: LibvirtClient | undefined;
  connecting?: Promise<LibvirtClient> | undefined;
  /** The next reconnection attempt, while one is scheduled. */
  retry?: NodeJS.Timeout | undefined;
  /** Set while the connection is being won back: why it was lost and which attempt this is. */
  retrying?: { why: string; attempt: number } | undefined;
}

/** What a failure says about a host: its state and the fields that go with it. */
export type HostFailure = Pick<HostStatus, 'message' | 'fingerprint' | 'needs' | 'keyFile' | 'hostKeyMismatch'> & {
  state: HostState;
  message: string;
};

/** Outcomes of an encrypted identity file that a passphrase would change. */
const PASSPHRASE_OUTCOMES = new Set(['skipped', 'no-passphrase-prompt', 'wrong-passphrase']);

/** Sorts a connection failure into the state a person acts on. */
export function classifyFailure(err: unknown): HostFailure {
  const message = messageOf(err);
  if (err instanceof HostKeyUnknownError) return { state: 'host-key-unknown', message, fingerprint: err.fingerprint };
  if (err instanceof HostKeyMismatchError)
    return { state: 'error', message, fingerprint: err.fingerprint, hostKeyMismatch: true };
  if (err instanceof SshAuthError) {
    // The server would take an encrypted key nobody gave the passphrase of (no agent key worked): ask for it.
    const locked = err.attempts.find((a) => a.method === 'key' && PASSPHRASE_OUTCOMES.has(a.outcome));
    if (locked) {
      const lead =
        locked.outcome === 'wrong-passphrase'
          ? `the remembered passphrase for ${locked.source} no longer unlocks it`
          : `the key ${locked.source} is encrypted`;
      return {
        state: 'auth-needed',
        needs: 'passphrase',
        keyFile: locked.source,
        message: `${lead}: enter its passphrase to connect (no key of the SSH agent was accepted)`,
      };
    }
    return { state: 'auth-needed', message };
  }
  // The handshake's refusals arrive here already explained (see connect and host-access.ts).
  if (err instanceof HostAccessDeniedError) return { state: 'auth-needed', message };
  return { state: 'error', message };
}

export class HostConnections extends EventEmitter<{ status: [HostStatus] }> {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly options: HostConnectionsOptions) {
    super();
    for (const host of options.hosts) {
      const dialer = options.dialer?.(host) ?? dialerForHost(host, { sshPool: options.sshPool });
      this.entries.set(host.name, {
        host,
        dialer,
        status: { name: host.name, address: host.address, via: dialer.description, state: 'connecting' },
      });
    }
  }

  /** Every host's current status, in config order. */
  statuses(): HostStatus[] {
    return [...this.entries.values()].map((e) => e.status);
  }

  status(name: string): HostStatus {
    return this.entry(name).status;
  }

  /** The host's open client, connecting (once, shared by concurrent callers) when there is none. */
  client(name: string): Promise<LibvirtClient> {
    const entry = this.entry(name);
    if (this.closed) return Promise.reject(new ConnectionClosedError('the app is shutting down'));
    if (entry.client) return Promise.resolve(entry.client);
    entry.connecting ??= this.connect(entry).finally(() => {
      entry.connecting = undefined;
    });
    return entry.connecting;
  }

  /** Drops every connection (CONNECT_CLOSE first). */
  async close(): Promise<void> {
    this.closed = true;
    for (const e of this.entries.values()) clearTimeout(e.retry);
    await Promise.all([...this.entries.values()].map((e) => e.client?.close().catch(() => undefined)));
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry)
      throw new Error(`no host named ${JSON.stringify(name)} (known: ${[...this.entries.keys()].join(', ')})`);
    return entry;
  }

  /** A passphrase given for the host's key did not unlock it: it stays auth-needed, saying so. */
  wrongPassphrase(name: string, keyFile: string, message: string): HostStatus {
    const entry = this.entry(name);
    this.setStatus(entry, { state: 'auth-needed', needs: 'passphrase', keyFile, message });
    return entry.status;
  }

  private setStatus(entry: Entry, update: Omit<HostStatus, 'name' | 'address' | 'via' | 'warnings'>): void {
    const store = update.needs === 'passphrase' ? this.options.secretStore?.() : undefined;
    const warnings = this.warnings(entry);
    entry.status = {
      name: entry.host.name,
      address: entry.host.address,
      via: entry.dialer.description,
      ...update,
      ...(store ? { secretStore: store } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
    this.emit('status', entry.status);
  }

  /**
   * The warnings of the settings the host's last dial resolved (ssh_config read afresh on
   * every dial): they travel with every status, so no front end can drop them.
   */
  private warnings(entry: Entry): string[] {
    const settings = entry.dialer instanceof SshDialer ? entry.dialer.settings : undefined;
    return settings ? settings.warnings.map((w) => formatSshWarning(w, this.options.sshPool.homeDir)) : [];
  }

  /**
   * Tries the lost connection again after a delay that doubles with each failed attempt
   * (1 s, 2 s, 4 s… up to 30 s by default). Only failures a retry can mend are retried (the
   * daemon not answering yet, the network): a host key or sign-in a person must deal with
   * ends the loop in that state. A call that needs the host meanwhile connects at once.
   */
  private scheduleReconnect(entry: Entry, why: string, attempt: number): void {
    const first = this.options.reconnect?.firstDelayMs ?? 1_000;
    const max = this.options.reconnect?.maxDelayMs ?? 30_000;
    const delay = Math.min(first * 2 ** attempt, max);
    clearTimeout(entry.retry);
    entry.retrying = { why, attempt };
    this.setStatus(entry, {
      state: 'reconnecting',
      message: `${why}; reconnecting in ${formatDelay(delay)} (attempt ${attempt + 1})`,
    });
    entry.retry = setTimeout(() => {
      entry.retry = undefined;
      if (this.closed || entry.client) return;
      this.client(entry.host.name).catch((err: unknown) => {
        if (this.closed || entry.client) return;
        const failure = classifyFailure(hostAccessError(err, entry.host, entry.dialer));
        if (failure.state === 'error' && !failure.hostKeyMismatch)
          this.scheduleReconnect(entry, failure.message, attempt + 1);
      });
    }, delay);
    entry.retry.unref();
  }

  private async connect(entry: Entry): Promise<LibvirtClient> {
    const retrying = entry.retrying;
    this.setStatus(
      entry,
      retrying
        ? { state: 'reconnecting', message: `${retrying.why}; reconnecting now (attempt ${retrying.attempt + 1})` }
        : { state: 'connecting' },
    );
    const signal = AbortSignal.timeout(this.options.connectTimeoutMs ?? 30_000);
    try {
      const uri = this.options.uri?.(entry.host) ?? uriForHost(entry.host);
      const onPolkit = this.options.onPolkit;
      const client = await LibvirtClient.connect(entry.dialer, {
        uri,
        signal,
        ...(onPolkit ? { onPolkit: () => onPolkit(entry.host.name) } : {}),
      });
      entry.client = client;
      entry.retrying = undefined;
      client.once('close', (reason) => {
        if (entry.client !== client) return;
        entry.client = undefined;
        if (this.closed) return;
        const why = `connection lost: ${reason?.message ?? 'closed'}`;
        if (this.options.reconnect) this.scheduleReconnect(entry, why, 0);
        else this.setStatus(entry, { state: 'error', message: `${why}; it is reopened on next use` });
      });
      this.setStatus(entry, { state: 'connected' });
      return client;
    } catch (caught) {
      const err = hostAccessError(caught, entry.host, entry.dialer);
      const failure =
        signal.aborted && !(err instanceof TransportError)
          ? {
              state: 'error' as const,
              message: `no answer from ${entry.dialer.description} within ${(this.options.connectTimeoutMs ?? 30_000) / 1000} s`,
            }
          : classifyFailure(err);
      // While reconnecting, a failure a retry can mend is reported by the next schedule, not as an error in between.
      if (!(retrying && this.options.reconnect && failure.state === 'error' && !failure.hostKeyMismatch)) {
        entry.retrying = undefined;
        this.setStatus(entry, failure);
      }
      throw err;
    }
  }
}

/** `800 ms`, `2 s`, `30 s`. */
function formatDelay(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
