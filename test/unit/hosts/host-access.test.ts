import { describe, expect, it, vi } from 'vitest';
import { AuthType } from '../../../electron/libvirt/constants.js';
import { ErrorCode, LibvirtError } from '../../../electron/libvirt/errors.js';
import { HostAccessDeniedError, hostAccessError } from '../../../electron/services/hosts/host-access.js';
import { HostConnections } from '../../../electron/services/hosts/host-connections.js';
import { type Dialer, SocketMissingError, SshConnectionPool, SshDialer } from '../../../electron/transport/index.js';
import { duplexPair } from '../libvirt/support/duplex-pair.js';
import { FakeDaemon } from '../libvirt/support/fake-daemon.js';
import { sampleHost } from '../../support/host-samples.js';

const local = sampleHost();
const remote = sampleHost({ name: 'edge', address: 'edge.example.test', sshUser: 'ops' });
const NO_AGENT =
  "authentication unavailable: no polkit agent available to authenticate action 'org.libvirt.unix.manage'";
const polkitRefusal = () => LibvirtError.local(ErrorCode.AUTH_UNAVAILABLE, NO_AGENT, 'AUTH_POLKIT');
const localDialer: Dialer = {
  description: 'unix:/run/libvirt/libvirt-sock',
  dial: () => Promise.reject(new Error('not dialled here')),
};

describe('hostAccessError', () => {
  it('local: names the host, the socket and the user, and says to join the libvirt group and log in again', () => {
    const err = hostAccessError(polkitRefusal(), local, localDialer, () => 'alice');
    expect(err).toBeInstanceOf(HostAccessDeniedError);
    const e = err as HostAccessDeniedError;
    expect(e.message).toBe(
      `libvirt on desk (this machine, /run/libvirt/libvirt-sock) refused your user alice (${NO_AGENT}). ` +
        "Join the libvirt group (sudo usermod -aG libvirt alice) and log in again, or set socketPath to a session daemon's socket ($XDG_RUNTIME_DIR/libvirt/libvirt-sock)",
    );
    expect(e).toMatchObject({ code: 'HOST_ACCESS_DENIED', host: 'desk', user: 'alice' });
    expect(e.cause).toBeInstanceOf(LibvirtError);
  });

  it('SSH: names the host and the SSH user, and says to add that user to the group there', () => {
    const dialer = new SshDialer({ address: remote.address, sshUser: 'ops' }, new SshConnectionPool({ env: {} }));
    const err = hostAccessError(
      LibvirtError.local(ErrorCode.AUTH_FAILED, 'authentication failed: access denied by policy', 'AUTH_POLKIT'),
      remote,
      dialer,
    );
    expect((err as Error).message).toBe(
      'libvirt on edge (edge.example.test) refused SSH user ops (authentication failed: access denied by policy). ' +
        'On edge.example.test, add ops to the libvirt group (sudo usermod -aG libvirt ops), or set sshUser to an account that is in it, then connect again',
    );
    expect(err).toMatchObject({ host: 'edge', user: 'ops' });
  });

  it('a daemon that wants SASL: says which libvirtd.conf setting to change', () => {
    const sasl = LibvirtError.local(
      ErrorCode.AUTH_UNAVAILABLE,
      'libvirtd requires SASL authentication; this client supports polkit and none',
      'AUTH_LIST',
    );
    expect((hostAccessError(sasl, local, localDialer, () => 'alice') as Error).message).toMatch(
      /^libvirt on desk \(this machine, .*\): libvirtd requires SASL .*Set auth_unix_rw = "polkit"/,
    );
  });

  it('leaves every other error as it is', () => {
    const other = LibvirtError.local(ErrorCode.NO_SUPPORT, 'no connection driver available', 'CONNECT_OPEN');
    const missing = new SocketMissingError('/run/libvirt/libvirt-sock');
    expect(hostAccessError(other, local, localDialer)).toBe(other);
    expect(hostAccessError(missing, local, localDialer)).toBe(missing);
  });
});

describe('HostConnections on a daemon that asks polkit', () => {
  it('a refusal becomes auth-needed with the explained message, and the caller gets the same error', async () => {
    const onPolkit = vi.fn();
    const connections = new HostConnections({
      hosts: [local],
      sshPool: new SshConnectionPool({ env: {} }),
      onPolkit,
      // Every dial reaches a scripted daemon that offers only polkit, and polkit says no.
      dialer: () => ({
        description: 'unix:/run/libvirt/libvirt-sock',
        dial: () => {
          const pair = duplexPair();
          new FakeDaemon(pair.daemon)
            .handshake({ auth: [AuthType.POLKIT] })
            .handle('AUTH_POLKIT', (c, d) => d.replyError(c, ErrorCode.AUTH_UNAVAILABLE, NO_AGENT));
          return Promise.resolve(pair.client);
        },
      }),
    });
    const err = await connections.client('desk').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostAccessDeniedError);
    expect(onPolkit).toHaveBeenCalledWith('desk');
    expect(connections.status('desk')).toMatchObject({ state: 'auth-needed', message: (err as Error).message });
    expect(connections.status('desk').message).toMatch(/Join the libvirt group .* and log in again/);
    await connections.close();
  });
});
