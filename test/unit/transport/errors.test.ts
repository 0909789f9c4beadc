import { describe, expect, it } from 'vitest';
import {
  HostKeyMismatchError,
  HostKeyUnknownError,
  localSocketError,
  RemoteSocketError,
  SocketMissingError,
  SocketPermissionError,
  SocketRefusedError,
  SshAuthError,
  TransportError,
} from '../../../electron/transport/index.js';

const sysErr = (code: string): Error => Object.assign(new Error(`connect ${code} /run/libvirt/libvirt-sock`), { code });

describe('local socket errors', () => {
  it.each([
    ['ENOENT', SocketMissingError, 'install libvirt-daemon-system and start libvirtd'],
    ['EACCES', SocketPermissionError, 'join the libvirt group: sudo usermod -aG libvirt $USER, then log in again'],
    ['ECONNREFUSED', SocketRefusedError, 'the daemon is not running'],
  ] as const)('%s says what to do', (code, type, advice) => {
    const err = localSocketError('/run/libvirt/libvirt-sock', sysErr(code));
    expect(err).toBeInstanceOf(type);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toContain(advice);
    expect(err.cause).toMatchObject({ code });
  });

  it('keeps the detail of anything else', () => {
    const err = localSocketError('/s', sysErr('EMFILE'));
    expect(err.code).toBe('SOCKET_ERROR');
    expect(err.message).toBe("cannot connect to libvirt's socket /s: connect EMFILE /run/libvirt/libvirt-sock");
  });
});

describe('SSH error messages', () => {
  const key = Buffer.from('AAAAC3NzaC1lZDI1NTE5AAAAIH5Iuhj1VN32NoMEJnQHKErHbNGcf+tSWMffr2osQ8Ws', 'base64');

  it('shows the fingerprint of an unknown key and where trusting it writes', () => {
    const err = new HostKeyUnknownError('127.0.0.1', 2222, 'ssh-ed25519', key, '/home/ann/.ssh/known_hosts', false);
    expect(err.name).toBe('HostKeyUnknownError');
    expect(err.fingerprint).toBe('SHA256:2wXYnZ6i1RkvrbqpP0EevvwSH0FIxVBaewvq5VyUUl8');
    expect(err.message).toContain('[127.0.0.1]:2222');
    expect(err.message).toContain('/home/ann/.ssh/known_hosts');
  });

  it('names the conflicting line of a changed key and how to remove it', () => {
    const err = new HostKeyMismatchError(
      'edge-a',
      22,
      'ssh-ed25519',
      key,
      { file: '/kh', line: 3, keyType: 'ssh-ed25519', fingerprint: 'SHA256:old' },
      false,
    );
    expect(err.message).toContain('/kh:3');
    expect(err.message).toContain('SHA256:old');
    expect(err.message).toContain('ssh-keygen -f "/kh" -R "edge-a"');
  });

  it('lists authentication attempts', () => {
    const err = new SshAuthError('root', 'edge-a', 22, [
      { method: 'agent', source: '/run/agent', outcome: 'no-keys', detail: '0 keys' },
      { method: 'key', source: '/home/ann/.ssh/id_ed25519', outcome: 'rejected' },
    ]);
    expect(err.message).toBe(
      'SSH authentication as root@edge-a:22 failed. Tried: the SSH agent (/run/agent): holds no keys (0 keys); /home/ann/.ssh/id_ed25519: refused by the server. ' +
        'Add your public key to ~root/.ssh/authorized_keys on edge-a, load it into your SSH agent (ssh-add), or set identityFile for this host.',
    );
    expect(new SshAuthError('u', 'h', 22, []).message).toContain(
      'no agent (SSH_AUTH_SOCK unset) and no identity file found',
    );
  });

  it('tells a refused forward apart from a missing socket', () => {
    expect(new RemoteSocketError('edge-a', '/run/libvirt/libvirt-sock', 2).message).toMatch(
      /^libvirt's socket \/run\/libvirt\/libvirt-sock does not exist on edge-a: is libvirtd running there\?/,
    );
    expect(new RemoteSocketError('edge-a', '/s', 1).message).toContain('AllowStreamLocalForwarding yes');
  });
});
