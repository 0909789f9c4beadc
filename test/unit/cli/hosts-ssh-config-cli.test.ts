import { mkdirSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliRunner } from '../../support/cli.js';
import { tempDir } from '../../support/temp-dir.js';

let work: string;
let home: string;
const cli = cliRunner(() => ({ home, cwd: work, data: join(work, 'data'), config: join(work, 'config.yaml') }));

const CONFIG = `type: kvm
kvm:
  hosts:
    - { name: local, address: local }
    - { name: edge-a, address: Edge-A, sshUser: ops, identityFile: ~/.ssh/app_key }
  machineTypes: { small: { vcpus: 1, memoryMiB: 512 } }
  images: { debian-12: { url: "https://images.example.org/d.qcow2", sha256: "${'0'.repeat(64)}" } }
  defaults: { machineType: small, image: debian-12 }
`;

beforeEach(() => {
  work = tempDir('egress-sshcfg-cli-');
  home = join(work, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(work, 'config.yaml'), CONFIG);
});

describe('egress-desk hosts ssh-config', () => {
  it('prints where a host connects, as whom, keys in order with their origin, the jump chain and every warning; nothing connects', async () => {
    writeFileSync(
      join(home, '.ssh', 'config'),
      'Host edge-a\n  User wrong-case\nHost Edge-A\n  HostName 203.0.113.10\n  ProxyJump bastion\nMatch originalhost edge-a\n  Port 2222\n  IdentityFile ~/.ssh/id_%r\nMatch exec "test -e /"\n  User never\nHost bastion\n  User jumper\n',
    );
    const r = await cli('hosts', 'ssh-config', 'edge-a');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toContain('edge-a: ssh://ops@203.0.113.10:2222 (address "Edge-A")');
    expect(out).toContain('port           2222   (~/.ssh/config line 7)');
    expect(out).toMatch(
      /1\. ~\/\.ssh\/app_key {3}\(the app's host entry\)\n {4}2\. ~\/\.ssh\/id_ops {3}\(~\/\.ssh\/config line 8, written "~\/\.ssh\/id_%r"\)/,
    );
    expect(out).toContain('via            jumper@bastion:22   (ProxyJump bastion, ~/.ssh/config line 5)');
    expect(out).toContain('~/.ssh/config line 9: Match exec "test -e /" was not run');

    const json = await cli('hosts', 'ssh-config', 'edge-a', '--json');
    const parsed = JSON.parse(json.stdout) as {
      user: string;
      port: number;
      jump: { user: string };
      warnings: Array<{ line: number }>;
    };
    expect(parsed).toMatchObject({ user: 'ops', port: 2222, jump: { user: 'jumper' }, warnings: [{ line: 9 }] });
  });

  it('refuses a config OpenSSH refuses, naming file and line, and names unknown and local hosts', async () => {
    writeFileSync(join(home, '.ssh', 'config'), 'Host other\n  Port 99999\n');
    const bad = await cli('hosts', 'ssh-config', 'edge-a');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${home}/.ssh/config line 2: Bad port '99999'.`);
    expect(bad.stderr).not.toMatch(/^\s+at /m);
    expect((await cli('hosts', 'ssh-config', 'nope')).stderr).toContain('no host named "nope"');
    expect((await cli('hosts', 'ssh-config', 'local')).stderr).toContain('no SSH involved');
  });
});
