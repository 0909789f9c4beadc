/**
 * The real readiness probes: "does the proxy port accept a TCP connection?", asked from
 * where the guest's address is reachable. Locally that is this machine (net.connect);
 * for an SSH host it is the host itself, through a direct-tcpip channel of the host's
 * shared SSH connection, so that guests on a host-only network are probed correctly.
 *
 * `EGRESS_DESK_PROBE_NETNS` is a test and diagnostic aid only: when set, the local probe
 * runs inside that network namespace (`ip netns exec NS bash -c '</dev/tcp/IP/PORT'`),
 * for hypervisors whose guest network lives in a namespace (the test environment's).
 */
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import type { ResolvedKVMHost } from '../../../../shared/config.js';
import { type SshConnectionPool, sshTargetOf } from '../../../transport/index.js';
import type { PortProbe } from './readiness.js';

/** The environment variable that makes the local probe run inside a network namespace. */
export const PROBE_NETNS_ENV = 'EGRESS_DESK_PROBE_NETNS';

/** A TCP connect from this machine. */
export function tcpConnect(address: string, port: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    const done = (open: boolean): void => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(open);
    };
    const onAbort = (): void => done(false);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A TCP connect from inside network namespace `netns` (needs root or CAP_SYS_ADMIN). */
export function netnsConnect(netns: string, address: string, port: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    // Address and port are passed as arguments, never pasted into the script.
    execFile(
      'ip',
      ['netns', 'exec', netns, 'bash', '-c', 'exec 3<>"/dev/tcp/$1/$2"', 'probe', address, String(port)],
      { signal, timeout: 5_000 },
      (err) => resolve(!err),
    );
  });
}

/** The probe of a configured host: local, local inside a namespace, or from the SSH host. */
export function createPortProbe(options: {
  sshPool: SshConnectionPool;
  env: Readonly<Record<string, string | undefined>>;
}): PortProbe {
  const netns = options.env[PROBE_NETNS_ENV];
  return async (host: ResolvedKVMHost, address: string, port: number, signal: AbortSignal): Promise<boolean> => {
    if (host.address === 'local')
      return netns ? netnsConnect(netns, address, port, signal) : tcpConnect(address, port, signal);
    const settings = await options.sshPool.resolve(sshTargetOf(host));
    try {
      const stream = await options.sshPool.openTcp(settings, address, port, signal);
      stream.destroy();
      return true;
    } catch {
      return false;
    }
  };
}
