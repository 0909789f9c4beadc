/**
 * The transport contract, as go-libvirt's socket.Dialer: "give me a duplex byte stream to
 * a libvirt daemon". The RPC client knows nothing else about how bytes travel: a local
 * unix socket and an SSH streamlocal forward are both just a Duplex.
 */
import type { Duplex } from 'node:stream';

export interface Dialer {
  /** Opens a new byte stream to the daemon's socket. Rejects with a typed error saying why not. */
  dial(options?: { signal?: AbortSignal }): Promise<Duplex>;
  /** A short description for messages and logs, e.g. `unix:/run/libvirt/libvirt-sock` or `ssh://root@edge-a:22`. */
  readonly description: string;
}
