/**
 * A real connection through the test sshd whose user, port and key come only from
 * ssh_config `Match` blocks (issue 13): the host's entry names an alias and nothing else,
 * and `egress-desk hosts status` connects only because `Match host … originalhost …`
 * applied; with the same file but a Match that does not apply, the catch-all block sends
 * it to a closed port as another user. A `Match exec` block is never run, and its warning
 * is on the host's status (JSON and text). HOME is a throwaway directory.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { HostStatus } from '../../shared/hosts.js';
import { runCliProcess } from '../support/cli.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const ALIAS = 'egtest-match-alias';
let home: string;

/** ssh_config whose second block gives User, Port and IdentityFile when `originalhost` is `matchAlias`. */
function sshConfig(matchAlias: string): string {
  return [
    `Host ${ALIAS}`,
    '  HostName 127.0.0.1',
    `Match host 127.0.0.1 originalhost ${matchAlias}`, // line 3
    '  User root',
    `  Port ${env.EGRESS_TEST_SSH_PORT}`,
    `  IdentityFile ${env.EGRESS_TEST_SSH_KEY}`,
    'Match exec "true"', // line 7: never run, so its Port never applies
    '  Port 1',
    'Host *', // what applies when the Match above did not: a closed port, another user
    '  User egtest-nobody',
    '  Port 1',
    '',
  ].join('\n');
}

function write(matchAlias: string): string {
  writeFileSync(join(home, '.ssh', 'config'), sshConfig(matchAlias), { mode: 0o600 });
  const file = join(home, 'config.yaml');
  writeFileSync(
    file,
    `type: kvm\nkvm:\n  hosts:\n    - { name: matched, address: ${ALIAS}, pool: ${env.EGRESS_TEST_POOL} }\n  machineTypes:\n    small: { vcpus: 1, memoryMiB: 512 }\n`,
  );
  return file;
}

const cli = (file: string, ...args: string[]) =>
  runCliProcess(['--config', file, ...args], { HOME: home, EGRESS_DESK_HOME: join(home, 'data') });

beforeEach(() => {
  home = tempDir('egress-ssh-match-');
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(home, '.ssh', 'known_hosts'));
});

describe('a host whose User, Port and IdentityFile come only from a Match block', () => {
  it('connects through the test sshd (hosts status), with the Match exec warning on its status', async () => {
    const file = write(ALIAS);
    const r = await cli(file, 'hosts', 'status', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [host] = JSON.parse(r.stdout) as HostStatus[];
    expect(host).toMatchObject({
      name: 'matched',
      state: 'connected',
      via: expect.stringMatching(new RegExp(`^ssh://root@127\\.0\\.0\\.1:${env.EGRESS_TEST_SSH_PORT}/`)),
    });
    expect(host!.info?.pools.map((p) => p.name)).toContain(env.EGRESS_TEST_POOL);
    expect(host!.warnings).toEqual([expect.stringMatching(/^~\/\.ssh\/config line 7: Match exec "true" was not run/)]);

    const text = await cli(file, 'hosts', 'status');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/\n {2}warning {6}~\/\.ssh\/config line 7: Match exec "true" was not run/);

    const settings = await cli(file, 'hosts', 'ssh-config', 'matched');
    expect(settings.stdout).toContain(`port           ${env.EGRESS_TEST_SSH_PORT}   (~/.ssh/config line 5)`);
    expect(settings.stdout).toContain('user           root   (~/.ssh/config line 4)');
    expect(settings.stdout).toContain(`1. ${env.EGRESS_TEST_SSH_KEY}   (~/.ssh/config line 6)`);
  });

  it('fails when the Match block does not apply: the catch-all sends it to a closed port as another user', async () => {
    const file = write('some-other-alias');
    const r = await cli(file, 'hosts', 'status', '--json');
    expect(r.code).toBe(1);
    const [host] = JSON.parse(r.stdout) as HostStatus[];
    expect(host).toMatchObject({
      state: 'error',
      via: expect.stringMatching(/^ssh:\/\/egtest-nobody@127\.0\.0\.1:1\//),
    });
    expect(host!.info).toBeUndefined();
  });
});
