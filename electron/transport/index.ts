/**
 * The transport layer's public API: "give me a duplex byte stream to a libvirt daemon",
 * locally or over SSH, with typed errors that say what to do.
 */
import type { Dialer } from './dialer.js';
import { DEFAULT_SOCKET_PATH, LocalSocketDialer } from './local.js';
import { SshDialer } from './ssh.js';
import type { SshConnectionPool } from './ssh-pool.js';
import type { SshTarget } from './ssh-config-types.js';

export type { Dialer } from './dialer.js';
export * from './errors.js';
export { DEFAULT_SOCKET_PATH, LocalSocketDialer, localSocketError } from './local.js';
export * from './ssh-errors.js';
export {
  HostKeyMismatchError,
  HostKeyUnknownError,
  trustHostKey,
  verifyHostKey,
  type HostKeyExpectation,
  type HostKeyFiles,
} from './host-key.js';
export {
  appendKnownHost,
  fingerprintSha256,
  formatKnownHostLine,
  hashHostName,
  KnownHosts,
  knownHostsName,
  keyTypeOf,
  lookupHostKey,
  parseKnownHosts,
  type HostKeyLookup,
  type HostKeyStatus,
  type KnownHostLine,
} from './known-hosts.js';
export {
  parseProxyJump,
  resolveSshHost,
  type IdentityFileSetting,
  type IdentitySource,
  type SettingOrigin,
  type SshConfigWarning,
  type JumpSpec,
  type SshConfigFile,
  type SshConfigSources,
  type SshHostSettings,
  type SshLocalContext,
  type SshTarget,
} from './ssh-config.js';
export { loadSshConfig, type SshConfigPaths } from './ssh-config-load.js';
export type { AskPassphrase, PassphraseRequest } from './ssh-auth.js';
export { decryptKeyFile, type KeyUnlock } from './key-unlock.js';
export type { ConnectTcp } from './ssh-connect.js';
export { connectionKey, localUserName, SshConnectionPool, type SshPoolEvent, type SshPoolOptions } from './ssh-pool.js';
export type { ExecResult } from './ssh-exec.js';
export { SshDialer, type SshDialTarget } from './ssh.js';

/** A host entry of the app config, as far as the transport cares. */
export interface TransportHost {
  name: string;
  /** `local` for this machine, else a host name, address or ssh_config alias reached over SSH. */
  address: string;
  sshUser?: string | undefined;
  sshPort?: number | undefined;
  identityFile?: string | undefined;
  socketPath?: string | undefined;
}

/** A host entry's SSH fields as ssh's command line takes them (`-l`, `-p`, `-i`): only those it sets. */
export function sshTargetOf(host: TransportHost): SshTarget {
  return {
    address: host.address,
    ...(host.sshUser !== undefined ? { sshUser: host.sshUser } : {}),
    ...(host.sshPort !== undefined ? { sshPort: host.sshPort } : {}),
    ...(host.identityFile !== undefined ? { identityFile: host.identityFile } : {}),
  };
}

/** What {@link dialerForHost} builds SSH dialers with. */
export interface TransportDeps {
  /** The app's one pool: every SSH dialer shares it, so each host costs one connection. */
  sshPool: SshConnectionPool;
}

/** The dialer for a configured host: the local socket for `local`, else SSH through the pool. */
export function dialerForHost(host: TransportHost, deps: TransportDeps): Dialer {
  const socketPath = host.socketPath ?? DEFAULT_SOCKET_PATH;
  if (host.address === 'local') return new LocalSocketDialer(socketPath);
  return new SshDialer({ ...sshTargetOf(host), socketPath }, deps.sshPool);
}
