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
import { DEFAULT_SOCKET_PATH, type Dialer, HostKeyMismatchError, HostKeyUnknownError, SshAuthError, type SshConnectionPool, SshDialer, TransportError, dialerForHost } from '../../transport/index.js';
import { formatSshWarning } from './ssh-settings-view.js';
import { messageOf } from '../../../shared/errors.js';

/** The hypervisor URI for a host: the system daemon's QEMU driver, or the daemon's own choice on another socket (a session daemon). */
export function uriForHost(host: ResolvedKVMHost): string {
  return host.socketPath === DEFAULT_SOCKET_PATH || host.socketPath === '/run/libvirt/libvirt-sock' ? 'qemu:///system' : '';
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
}

interface Entry {
  host: ResolvedKVMHost;
  dialer: Dialer;
  status: HostStatus;
  client?: LibvirtClient;
  connecting?: Promise<LibvirtClient>;
}

/** What a failure says about a host: its state and the fields that go with it. */
export type HostFailure = Pick<HostStatus, 'message' | 'fingerprint' | 'needs' | 'keyFile' | 'hostKeyMismatch'> & { state: HostState; message: string };

/** Outcomes of an encrypted identity file that a passphrase would change. */
const PASSPHRASE_OUTCOMES = new Set(['skipped', 'no-passphrase-prompt', 'wrong-passphrase']);

/** Sorts a connection failure into the state a person acts on. */
export function classifyFailure(err: unknown): HostFailure {
  const message = messageOf(err);
  if (err instanceof HostKeyUnknownError) return { state: 'host-key-unknown', message, fingerprint: err.fingerprint };
  if (err instanceof HostKeyMismatchError) return { state: 'error', message, fingerprint: err.fingerprint, hostKeyMismatch: true };
  if (err instanceof SshAuthError) {
    // The server would take an encrypted key nobody gave the passphrase of (no agent key worked): ask for it.
    const locked = err.attempts.find((a) => a.method === 'key' && PASSPHRASE_OUTCOMES.has(a.outcome));
    if (locked) {
      const lead = locked.outcome === 'wrong-passphrase' ? `the remembered passphrase for ${locked.source} no longer unlocks it` : `the key ${locked.source} is encrypted`;
      return { state: 'auth-needed', needs: 'passphrase', keyFile: locked.source, message: `${lead}: enter its passphrase to connect (no key of the SSH agent was accepted)` };
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
    await Promise.all([...this.entries.values()].map((e) => e.client?.close().catch(() => undefined)));
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`no host named ${JSON.stringify(name)} (known: ${[...this.entries.keys()].join(', ')})`);
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
    entry.status = { name: entry.host.name, address: entry.host.address, via: entry.dialer.description, ...update, ...(store ? { secretStore: store } : {}), ...(warnings.length ? { warnings } : {}) };
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

  private async connect(entry: Entry): Promise<LibvirtClient> {
    this.setStatus(entry, { state: 'connecting' });
    const signal = AbortSignal.timeout(this.options.connectTimeoutMs ?? 30_000);
    try {
      const uri = this.options.uri?.(entry.host) ?? uriForHost(entry.host);
      const onPolkit = this.options.onPolkit;
      const client = await LibvirtClient.connect(entry.dialer, { uri, signal, ...(onPolkit ? { onPolkit: () => onPolkit(entry.host.name) } : {}) });
      entry.client = client;
      client.once('close', (reason) => {
        if (entry.client !== client) return;
        entry.client = undefined;
        if (!this.closed) this.setStatus(entry, { state: 'error', message: `connection lost: ${reason?.message ?? 'closed'}; it is reopened on next use` });
      });
      this.setStatus(entry, { state: 'connected' });
      return client;
    } catch (caught) {
      const err = hostAccessError(caught, entry.host, entry.dialer);
      const failure = signal.aborted && !(err instanceof TransportError) ? { state: 'error' as const, message: `no answer from ${entry.dialer.description} within ${(this.options.connectTimeoutMs ?? 30_000) / 1000} s` } : classifyFailure(err);
      this.setStatus(entry, failure);
      throw err;
    }
  }
}
