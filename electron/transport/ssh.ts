/**
 * The SSH transport: a Dialer whose streams are OpenSSH streamlocal forwards to libvirt's
 * socket on a remote host, carried by the host's one shared SSH connection.
 */
import type { Duplex } from 'node:stream';
import type { Dialer } from './dialer.js';
import { abortReason } from './errors.js';
import { DEFAULT_SOCKET_PATH } from './local.js';
import type { SshHostSettings, SshTarget } from './ssh-config.js';
import type { SshConnectionPool } from './ssh-pool.js';
import { bracketHost } from '../../shared/net.js';

/** A remote libvirt host as the app config describes it. */
export interface SshDialTarget extends SshTarget {
  /** libvirt's socket on the remote host. Default /var/run/libvirt/libvirt-sock. */
  socketPath?: string;
}

/**
 * Dials libvirt on a remote host over SSH. Each `dial()` resolves the host's settings from
 * ssh_config afresh and opens a new channel on the pool's connection to that host, so any
 * number of dialers and streams to one host cost one SSH connection and one authentication.
 */
export class SshDialer implements Dialer {
  readonly socketPath: string;
  private resolved: SshHostSettings | undefined;

  constructor(
    readonly target: SshDialTarget,
    private readonly pool: SshConnectionPool,
  ) {
    this.socketPath = target.socketPath ?? DEFAULT_SOCKET_PATH;
  }

  /** `ssh://user@host:port/socket` once the settings are known; until then, what the config says. */
  get description(): string {
    const s = this.resolved;
    const user = s?.user ?? this.target.sshUser;
    const host = s?.hostName ?? this.target.address;
    const port = s?.port ?? this.target.sshPort;
    const via = s?.jump ? ` (via ${s.jump.hostName})` : '';
    return `ssh://${user ? `${user}@` : ''}${bracketHost(host)}${port ? `:${port}` : ''}${this.socketPath}${via}`;
  }

  /** The settings used by the last dial, if any. */
  get settings(): SshHostSettings | undefined {
    return this.resolved;
  }

  async dial(options: { signal?: AbortSignal } = {}): Promise<Duplex> {
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    this.resolved = await this.pool.resolve(this.target);
    return this.pool.openStreamLocal(this.resolved, this.socketPath, signal);
  }
}
