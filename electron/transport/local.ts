/**
 * The local transport: libvirt's unix socket on this machine.
 */
import { createConnection, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Dialer } from './dialer.js';
import {
  abortReason,
  errnoCode,
  SocketError,
  SocketMissingError,
  SocketPermissionError,
  SocketRefusedError,
  type TransportError,
} from './errors.js';
import { messageOf } from '../../shared/errors.js';

/** The system daemon's socket, libvirt's default. */
export const DEFAULT_SOCKET_PATH = '/var/run/libvirt/libvirt-sock';

/**
 * Dials libvirt's unix socket at `socketPath`. Failures say what to do next: a missing
 * socket means libvirt is not installed or not started, EACCES means the user is not in the
 * libvirt group, ECONNREFUSED means the daemon died and left its socket behind.
 */
export class LocalSocketDialer implements Dialer {
  readonly description: string;

  constructor(readonly socketPath: string = DEFAULT_SOCKET_PATH) {
    this.description = `unix:${socketPath}`;
  }

  dial(options: { signal?: AbortSignal } = {}): Promise<Duplex> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<Duplex>((resolve, reject) => {
      const socket: Socket = createConnection({ path: this.socketPath });
      const cleanup = (): void => {
        socket.off('connect', onConnect);
        socket.off('error', onError);
        signal?.removeEventListener('abort', onAbort);
      };
      const onConnect = (): void => {
        cleanup();
        resolve(socket);
      };
      const onError = (err: Error): void => {
        cleanup();
        socket.destroy();
        reject(localSocketError(this.socketPath, err));
      };
      const onAbort = (): void => {
        cleanup();
        socket.destroy();
        reject(abortReason(signal!));
      };
      socket.once('connect', onConnect);
      socket.once('error', onError);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Maps a connect error on a unix socket to the typed error that says what to do. */
export function localSocketError(socketPath: string, err: unknown): TransportError {
  switch (errnoCode(err)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new SocketMissingError(socketPath, { cause: err });
    case 'EACCES':
    case 'EPERM':
      return new SocketPermissionError(socketPath, { cause: err });
    case 'ECONNREFUSED':
      return new SocketRefusedError(socketPath, { cause: err });
    default:
      return new SocketError(socketPath, messageOf(err), { cause: err });
  }
}
