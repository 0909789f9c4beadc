/**
 * Where our ssh_config resolution differs from OpenSSH's on purpose, each difference said and
 * tested as such (the agreement everywhere else is ssh-config-openssh.test.ts): `Match exec`
 * is never run, and `%j` is expanded (OpenSSH 9.6+) where 9.2 refuses it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSshConfig } from '../../../electron/transport/ssh-config-load.js';
import { resolveSshHost } from '../../../electron/transport/ssh-config.js';
import { skipBecause } from '../../support/skip.js';
import { compare, sshG, sshPresent, useOpenSshSandbox } from './openssh-compare.js';

const sandbox = useOpenSshSandbox();

describe('deliberate differences from OpenSSH, each one said', () => {
  it('Match exec is never run: where ssh would apply the block, ours does not, and warns with file and line', async (ctx) => {
    if (!sshPresent) skipBecause(ctx, 'OpenSSH (ssh) is not installed: nothing to compare with');
    const dir = mkdtempSync(join(sandbox.root, 'exec-'));
    const config = join(dir, 'config');
    writeFileSync(config, 'Host a\n  Port 2300\nMatch exec true\n  User ran\n');
    const ssh = sshG(config, 'a', {});
    const ours = resolveSshHost(
      { address: 'a' },
      await loadSshConfig({ homeDir: sandbox.home, userConfigPath: config, systemConfigPath: null }),
      sandbox.local,
    );
    expect(ssh.values.get('user')).toEqual(['ran']);
    expect(ours.user).toBe(sandbox.local.localUser);
    expect(compare(ours, ssh, 'a')).toEqual([`a user: ours ${JSON.stringify(sandbox.local.localUser)}, ssh "ran"`]);
    expect(ours.warnings).toEqual([
      { file: config, line: 3, message: expect.stringContaining('Match exec "true" was not run') },
    ]);
  });

  it('%j is the last ProxyJump host (OpenSSH 9.6+), which 9.2 refuses', async (ctx) => {
    if (!sshPresent) skipBecause(ctx, 'OpenSSH (ssh) is not installed: nothing to compare with');
    const dir = mkdtempSync(join(sandbox.root, 'j-'));
    const config = join(dir, 'config');
    writeFileSync(config, `Host a\n  ProxyJump u@hop1:2200\n  UserKnownHostsFile ${dir}/kh_%j\n`);
    const ours = resolveSshHost(
      { address: 'a' },
      await loadSshConfig({ homeDir: sandbox.home, userConfigPath: config, systemConfigPath: null }),
      sandbox.local,
    );
    expect(ours.userKnownHostsFiles).toEqual([`${dir}/kh_hop1`]);
    const ssh = sshG(config, 'a', {});
    if (ssh.status === 0) expect(ssh.values.get('userknownhostsfile')).toEqual([`${dir}/kh_hop1`]);
    else expect(ssh.stderr).toContain('unknown key %j');
  });
});
