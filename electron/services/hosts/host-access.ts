/**
 * libvirtd accepted the connection but not the user: polkit refused it (the usual case on a
 * desktop, for someone outside the `libvirt` group), or the daemon wants an authentication
 * method this client does not speak. The raw libvirt text ("authentication unavailable: no
 * polkit agent available to authenticate action 'org.libvirt.unix.manage'") says neither
 * which host nor what to do; this error says both, for the local socket and for SSH.
 */
import type { ResolvedKVMHost } from '../../../shared/config.js';
import { isAuthError, LibvirtError } from '../../libvirt/index.js';
import { type Dialer, localUserName, SshDialer } from '../../transport/index.js';

/** The libvirt group Debian, Ubuntu and Fedora create with libvirt-daemon, which their polkit rule admits. */
export const LIBVIRT_GROUP = 'libvirt';

/** libvirtd refused this user during the handshake; the message names the host and the fix. */
export class HostAccessDeniedError extends Error {
  override readonly name = 'HostAccessDeniedError';
  readonly code = 'HOST_ACCESS_DENIED';

  constructor(
    message: string,
    /** The configured host's name. */
    readonly host: string,
    /** The account libvirtd refused: the local user, or the SSH user on the host. */
    readonly user: string,
    options: { cause: LibvirtError },
  ) {
    super(message, options);
  }
}

/**
 * Turns an authentication/authorisation failure of the handshake into a
 * {@link HostAccessDeniedError}; any other error is returned as it is.
 */
export function hostAccessError(
  err: unknown,
  host: ResolvedKVMHost,
  dialer: Dialer,
  localUser: () => string = () => localUserName('your user'),
): unknown {
  if (!(err instanceof LibvirtError) || !isAuthError(err)) return err;
  const said = err.message.replace(/[.\s]+$/, '');
  if (dialer instanceof SshDialer) {
    const settings = dialer.settings;
    const user = settings?.user ?? host.sshUser ?? 'the SSH user';
    const address = settings?.hostName ?? host.address;
    const where = address === host.name ? host.name : `${host.name} (${address})`;
    // Our own refusal before asking the daemon anything: it wants SASL (or something newer).
    if (err.procedure === 'AUTH_LIST') {
      return new HostAccessDeniedError(
        `libvirt on ${where}: ${said}. On ${address}, set auth_unix_rw = "polkit" in /etc/libvirt/libvirtd.conf and restart libvirtd`,
        host.name,
        user,
        { cause: err },
      );
    }
    return new HostAccessDeniedError(
      `libvirt on ${where} refused SSH user ${user} (${said}). On ${address}, add ${user} to the ${LIBVIRT_GROUP} group ` +
        `(sudo usermod -aG ${LIBVIRT_GROUP} ${user}), or set sshUser to an account that is in it, then connect again`,
      host.name,
      user,
      { cause: err },
    );
  }
  const user = localUser();
  if (err.procedure === 'AUTH_LIST') {
    return new HostAccessDeniedError(
      `libvirt on ${host.name} (this machine, ${host.socketPath}): ${said}. Set auth_unix_rw = "polkit" in /etc/libvirt/libvirtd.conf and restart libvirtd`,
      host.name,
      user,
      { cause: err },
    );
  }
  return new HostAccessDeniedError(
    `libvirt on ${host.name} (this machine, ${host.socketPath}) refused your user ${user} (${said}). ` +
      `Join the ${LIBVIRT_GROUP} group (sudo usermod -aG ${LIBVIRT_GROUP} ${user}) and log in again, ` +
      `or set socketPath to a session daemon's socket ($XDG_RUNTIME_DIR/libvirt/libvirt-sock)`,
    host.name,
    user,
    { cause: err },
  );
}
