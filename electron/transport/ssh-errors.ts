/**
 * Typed errors of the SSH transport (host-key errors live in host-key.ts). Messages name
 * hosts, users, ports and key file paths; they never hold a passphrase or key material.
 */
import { TransportError } from './errors.js';
import { bracketHost } from '../../shared/net.js';

/** `user@host:port`, or `[v6]:port`, for messages. */
export function sshEndpoint(user: string, host: string, port: number): string {
  const h = bracketHost(host);
  return `${user}@${h}:${port}`;
}

/** The ssh_config or the host's settings cannot be used as written. */
export class SshConfigError extends TransportError {
  readonly code = 'SSH_CONFIG';
}

/** The TCP connection or the SSH handshake failed: refused, timed out, unreachable, no common algorithm… */
export class SshConnectError extends TransportError {
  readonly code = 'SSH_CONNECT';
  constructor(
    readonly host: string,
    readonly port: number,
    /** What failed, e.g. "connection refused" or "timed out after 20 s". */
    readonly reason: string,
    options?: { cause?: unknown; hint?: string },
  ) {
    const h = bracketHost(host);
    super(`cannot reach the SSH server at ${h}:${port}: ${reason}${options?.hint ? `. ${options.hint}` : ''}`, options);
  }
}

/** One authentication method tried, and what came of it. */
export interface SshAuthAttempt {
  /** `agent` (the SSH agent) or `key` (an identity file). */
  method: 'agent' | 'key';
  /** The agent's socket path or the key file's path. */
  source: string;
  /** What happened: the server refused it, the person skipped its passphrase, … */
  outcome:
    'rejected' | 'skipped' | 'wrong-passphrase' | 'no-passphrase-prompt' | 'unreadable' | 'unavailable' | 'no-keys';
  /** More words for the outcome, e.g. "3 keys" or a parse error; never a secret. */
  detail?: string | undefined;
}

function describeAttempt(a: SshAuthAttempt): string {
  const what = a.method === 'agent' ? `the SSH agent (${a.source})` : a.source;
  const outcome: Record<SshAuthAttempt['outcome'], string> = {
    rejected: 'refused by the server',
    skipped: 'skipped: no passphrase given',
    'wrong-passphrase': 'wrong passphrase',
    'no-passphrase-prompt': 'encrypted, and no passphrase prompt available',
    unreadable: 'unreadable',
    unavailable: 'not reachable',
    'no-keys': 'holds no keys',
  };
  return `${what}: ${outcome[a.outcome]}${a.detail ? ` (${a.detail})` : ''}`;
}

/** Every authentication method failed. Lists what was tried so the person can fix the right thing. */
export class SshAuthError extends TransportError {
  readonly code = 'SSH_AUTH';
  constructor(
    readonly user: string,
    readonly host: string,
    readonly port: number,
    readonly attempts: readonly SshAuthAttempt[],
    options?: { cause?: unknown; serverMessage?: string },
  ) {
    const endpoint = sshEndpoint(user, host, port);
    const passphraseOnly = attempts.length > 0 && attempts.every((a) => a.outcome === 'wrong-passphrase');
    const tried =
      attempts.length > 0
        ? attempts.map(describeAttempt).join('; ')
        : 'no agent (SSH_AUTH_SOCK unset) and no identity file found';
    const lead = passphraseOnly
      ? `SSH authentication as ${endpoint} failed: wrong passphrase for ${attempts.map((a) => a.source).join(', ')}`
      : `SSH authentication as ${endpoint} failed`;
    const server = options?.serverMessage ? ` The server said: ${options.serverMessage}.` : '';
    super(
      `${lead}. Tried: ${tried}.${server} Add your public key to ~${user}/.ssh/authorized_keys on ${host}, ` +
        `load it into your SSH agent (ssh-add), or set identityFile for this host.`,
      options,
    );
  }
}

/** The remote sshd could not connect the forwarded channel to the libvirt socket. */
export class RemoteSocketError extends TransportError {
  readonly code = 'SSH_REMOTE_SOCKET';
  constructor(
    readonly host: string,
    readonly socketPath: string,
    /** The SSH channel-open failure reason code (RFC 4254 §5.1), when the server sent one. */
    readonly reasonCode: number | undefined,
    options?: { cause?: unknown; user?: string },
  ) {
    super(remoteSocketMessage(host, socketPath, reasonCode, options?.user), options);
  }
}

function remoteSocketMessage(
  host: string,
  socketPath: string,
  reasonCode: number | undefined,
  user: string | undefined,
): string {
  // 1 = SSH_OPEN_ADMINISTRATIVELY_PROHIBITED: sshd refuses streamlocal forwarding altogether.
  if (reasonCode === 1) {
    return (
      `the SSH server on ${host} refuses to forward to unix sockets: set AllowStreamLocalForwarding yes ` +
      `in its sshd_config${user ? ` (or lift the restriction for ${user})` : ''}`
    );
  }
  // OpenSSH answers CONNECT_FAILED for any connect() error on the remote side, so "missing"
  // and "not allowed" look the same from here: name both, missing first (far more common).
  return (
    `libvirt's socket ${socketPath} does not exist on ${host}: is libvirtd running there? ` +
    `(If it does exist, ${user ?? 'the SSH user'} may lack permission to open it: join the libvirt group there.)`
  );
}

/** The SSH connection died under an open stream or a pending dial. */
export class SshConnectionLostError extends TransportError {
  readonly code = 'SSH_CONNECTION_LOST';
  constructor(
    readonly host: string,
    readonly port: number,
    reason: string,
    options?: { cause?: unknown },
  ) {
    const h = bracketHost(host);
    super(`the SSH connection to ${h}:${port} was lost: ${reason}`, options);
  }
}
