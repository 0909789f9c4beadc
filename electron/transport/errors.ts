/**
 * The transport's typed errors. Each carries a stable `code` so that the layers above (host
 * status, IPC error envelope) can react to the kind of failure without parsing messages, and
 * a message written for the person: what happened, why, and what to do next.
 *
 * No message ever holds a secret: paths, host names and fingerprints only, never a
 * passphrase or key material.
 */

/** Every code a transport error can carry. */
export type TransportErrorCode =
  | 'SOCKET_MISSING'
  | 'SOCKET_PERMISSION'
  | 'SOCKET_REFUSED'
  | 'SOCKET_ERROR'
  | 'SSH_CONFIG'
  | 'SSH_CONNECT'
  | 'SSH_AUTH'
  | 'SSH_HOST_KEY_UNKNOWN'
  | 'SSH_HOST_KEY_MISMATCH'
  | 'SSH_REMOTE_SOCKET'
  | 'SSH_CONNECTION_LOST';

/** The base of every error the transport raises (aborts excepted: they reject with the signal's reason). */
export abstract class TransportError extends Error {
  abstract readonly code: TransportErrorCode;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * What the person is told when the local socket fails in one of the ways we can name, given its
 * path: what happened and the command that fixes it. One table, so the advice reads side by side.
 */
const LOCAL_SOCKET_ADVICE = {
  SOCKET_MISSING: (socketPath: string) =>
    `libvirt's socket ${socketPath} does not exist: install libvirt-daemon-system and start libvirtd, ` +
    `or set socketPath to a session daemon's $XDG_RUNTIME_DIR/libvirt/libvirt-sock`,
  SOCKET_PERMISSION: (socketPath: string) =>
    `permission denied on libvirt's socket ${socketPath}: join the libvirt group: ` +
    `sudo usermod -aG libvirt $USER, then log in again`,
  SOCKET_REFUSED: (socketPath: string) =>
    `libvirt's socket ${socketPath} refused the connection: the daemon is not running. ` +
    `Start it (sudo systemctl start libvirtd) and try again`,
} as const satisfies Partial<Record<TransportErrorCode, (socketPath: string) => string>>;

/** A failure to open the local libvirt socket at `socketPath` that LOCAL_SOCKET_ADVICE has words for. */
abstract class AdvisedSocketError<C extends keyof typeof LOCAL_SOCKET_ADVICE> extends TransportError {
  constructor(
    readonly code: C,
    readonly socketPath: string,
    options?: { cause?: unknown },
  ) {
    super(LOCAL_SOCKET_ADVICE[code](socketPath), options);
  }
}

/** The local libvirt socket does not exist: libvirt is not installed, not started, or the path is wrong. */
export class SocketMissingError extends AdvisedSocketError<'SOCKET_MISSING'> {
  constructor(socketPath: string, options?: { cause?: unknown }) {
    super('SOCKET_MISSING', socketPath, options);
  }
}

/** The local libvirt socket exists but this user may not connect to it. */
export class SocketPermissionError extends AdvisedSocketError<'SOCKET_PERMISSION'> {
  constructor(socketPath: string, options?: { cause?: unknown }) {
    super('SOCKET_PERMISSION', socketPath, options);
  }
}

/** The socket file is there but nothing listens on it: the daemon that created it is gone. */
export class SocketRefusedError extends AdvisedSocketError<'SOCKET_REFUSED'> {
  constructor(socketPath: string, options?: { cause?: unknown }) {
    super('SOCKET_REFUSED', socketPath, options);
  }
}

/** Any other failure to open the local socket. */
export class SocketError extends TransportError {
  readonly code = 'SOCKET_ERROR';
  constructor(
    readonly socketPath: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot connect to libvirt's socket ${socketPath}: ${detail}`, options);
  }
}

/**
 * What an aborted operation rejects with: the signal's own reason when it is an Error (so a
 * caller that aborted with a reason gets it back), else a standard AbortError.
 */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

/** The errno-style code of a Node system error, if it has one. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
