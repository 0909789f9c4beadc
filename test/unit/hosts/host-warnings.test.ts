// ssh_config warnings reach the host's status whatever the connection's outcome (HostConnections), and the terminal (hosts status).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatHostStatus } from '../../../electron/cli/commands/hosts-format.js';
import { HostConnections } from '../../../electron/services/hosts/host-connections.js';
import { SshConnectionPool } from '../../../electron/transport/index.js';
import type { ResolvedKVMHost } from '../../../shared/config.js';
import { tempDir } from '../../support/temp-dir.js';

const edge: ResolvedKVMHost = {
  name: 'edge',
  address: 'edge-alias',
  socketPath: '/run/libvirt/libvirt-sock',
  pool: 'default',
  domainType: 'auto',
};

function poolWith(config: string): { pool: SshConnectionPool; dialled: Array<{ host: string; port: number }> } {
  const home = tempDir('egress-warn-');
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'config'), config);
  const dialled: Array<{ host: string; port: number }> = [];
  const pool = new SshConnectionPool({
    env: {},
    homeDir: home,
    localUser: 'me',
    systemConfigPath: null,
    // Nothing listens: the connection fails, and the warnings must still be there.
    connectTcp: (host, port) => {
      dialled.push({ host, port });
      return Promise.reject(new Error('connection refused'));
    },
  });
  return { pool, dialled };
}

describe('host status warnings', () => {
  it('a Match exec that was not run is on the status of a host that failed to connect, with file and line (home as ~)', async () => {
    const { pool, dialled } = poolWith(
      'Match exec "true"\n  Port 2200\nHost edge-alias\n  HostName 127.0.0.1\n  Port 2201\n',
    );
    const connections = new HostConnections({ hosts: [edge], sshPool: pool, connectTimeoutMs: 5_000 });
    await expect(connections.client('edge')).rejects.toThrow();
    expect(dialled).toEqual([{ host: '127.0.0.1', port: 2201 }]); // the exec block did not apply
    const status = connections.status('edge');
    expect(status.state).toBe('error');
    expect(status.warnings).toEqual([
      '~/.ssh/config line 1: Match exec "true" was not run (Egress Desk never runs commands from ssh_config): the block is treated as not matching, where ssh would run the command and apply the block if it succeeded',
    ]);
    expect(formatHostStatus(status)).toContain(`\n  warning      ${status.warnings![0]}\n`);
    await connections.close();
    await pool.close();
  });

  it('a config without anything to warn about leaves warnings off the status', async () => {
    const { pool } = poolWith('Host edge-alias\n  HostName 127.0.0.1\n');
    const connections = new HostConnections({ hosts: [edge], sshPool: pool, connectTimeoutMs: 5_000 });
    await expect(connections.client('edge')).rejects.toThrow();
    expect(connections.status('edge').warnings).toBeUndefined();
    expect(formatHostStatus(connections.status('edge'))).not.toContain('warning');
    await connections.close();
    await pool.close();
  });
});
