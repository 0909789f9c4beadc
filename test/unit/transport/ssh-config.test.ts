import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSshConfig } from '../../../electron/transport/ssh-config-load.js';
import {
  parseProxyJump,
  resolveSshHost,
  type SshConfigSources,
  type SshHostSettings,
  type SshTarget,
} from '../../../electron/transport/ssh-config.js';
import { SshConfigError } from '../../../electron/transport/ssh-errors.js';
import { tempDir } from '../../support/temp-dir.js';

const local = {
  homeDir: '/home/ann',
  localUser: 'ann',
  env: { SSH_AUTH_SOCK: '/run/user/1000/agent.sock', HOME: '/home/ann' },
  uid: 1000,
};

function resolve(config: string, target: SshTarget | string, extra: Partial<SshConfigSources> = {}): SshHostSettings {
  const t = typeof target === 'string' ? { address: target } : target;
  return resolveSshHost(t, { user: { path: '/home/ann/.ssh/config', text: config }, ...extra }, local);
}

const BASE = `
# applies to every host, before any Host block
ServerAliveInterval 15

Host web1
  Port 2201
Host web* !web-internal
  Port 2200
  User deploy
Host db?
  User dba
HOST Edge-A edge-b
  hostname 203.0.113.10
  PORT=2222
  IdentityFile ~/.ssh/edge_%h_%r_%p
  IdentityFile "\${HOME}/keys/my key"
Host *.lab
  HostName %h.example.com
  HostKeyAlias lab-alias
Host *
  Port 2000
  IdentityFile %d/.ssh/id_%u
`;

describe('resolveSshHost: precedence and matching (table)', () => {
  const cases: Array<[string, SshTarget | string, Partial<SshHostSettings>]> = [
    [
      'defaults when no block matches but Host *',
      'plain',
      {
        hostName: 'plain',
        port: 2000,
        user: 'ann',
        identitySource: 'ssh_config',
        identityFiles: ['/home/ann/.ssh/id_ann'],
      },
    ],
    ['first matching block wins (web1 before web*)', 'web1', { port: 2201, user: 'deploy' }],
    ['a later block fills what earlier ones left unset', 'web2', { port: 2200, user: 'deploy' }],
    ['a negated pattern excludes the host from the block', 'web-internal', { port: 2000, user: 'ann' }],
    ['? matches exactly one character', 'db1', { user: 'dba' }],
    ['? does not match two characters', 'db10', { user: 'ann' }],
    ['? does not match none', 'db', { user: 'ann' }],
    [
      'keywords are case-insensitive; Host patterns match the name as typed',
      'Edge-A',
      { hostName: '203.0.113.10', port: 2222 },
    ],
    [
      'a Host pattern in another case does not match (OpenSSH compares case)',
      'EDGE-A',
      { hostName: 'edge-a', port: 2000 },
    ],
    ['a second pattern on the Host line matches', 'edge-b', { hostName: '203.0.113.10', port: 2222 }],
    [
      'IdentityFile accumulates in order, tokens and ${VAR} and ~ expanded',
      'Edge-A',
      {
        identityFiles: ['/home/ann/.ssh/edge_203.0.113.10_ann_2222', '/home/ann/keys/my key', '/home/ann/.ssh/id_ann'],
        identitySource: 'ssh_config',
      },
    ],
    [
      '%h in HostName is the alias; HostKeyAlias names the known_hosts entry',
      'box.lab',
      { hostName: 'box.lab.example.com', port: 2000, hostKeyName: 'lab-alias', hostKeyPort: 22 },
    ],
    [
      "explicit app fields beat ssh_config; the app's identityFile comes first, like ssh -i",
      { address: 'edge-b', sshUser: 'root', sshPort: 22, identityFile: '~/.ssh/explicit' },
      {
        user: 'root',
        port: 22,
        identityFiles: [
          '/home/ann/.ssh/explicit',
          '/home/ann/.ssh/edge_203.0.113.10_root_22',
          '/home/ann/keys/my key',
          '/home/ann/.ssh/id_ann',
        ],
        identitySource: 'explicit',
      },
    ],
    [
      '%r in IdentityFile is the final user, explicit one included',
      { address: 'edge-b', sshUser: 'root' },
      {
        identityFiles: ['/home/ann/.ssh/edge_203.0.113.10_root_2222', '/home/ann/keys/my key', '/home/ann/.ssh/id_ann'],
      },
    ],
    ['directives before any Host apply to all hosts', 'anything', { keepaliveIntervalMs: 15_000 }],
  ];
  it.each(cases)('%s', (_name, target, expected) => {
    expect(resolve(BASE, target)).toMatchObject(expected);
  });

  it('falls back to OpenSSH defaults with no config at all', () => {
    expect(resolveSshHost({ address: '198.51.100.7' }, {}, local)).toEqual({
      alias: '198.51.100.7',
      hostName: '198.51.100.7',
      port: 22,
      user: 'ann',
      identityFiles: [
        '/home/ann/.ssh/id_rsa',
        '/home/ann/.ssh/id_ecdsa',
        '/home/ann/.ssh/id_ed25519',
        '/home/ann/.ssh/id_dsa',
      ],
      identitySource: 'default',
      identities: ['id_rsa', 'id_ecdsa', 'id_ed25519', 'id_dsa'].map((n) => ({
        path: `/home/ann/.ssh/${n}`,
        written: `~/.ssh/${n}`,
        origin: { kind: 'default' as const },
      })),
      identitiesOnly: false,
      agentSocket: '/run/user/1000/agent.sock',
      jump: undefined,
      proxyJump: undefined,
      proxyCommand: undefined,
      userKnownHostsFiles: ['/home/ann/.ssh/known_hosts', '/home/ann/.ssh/known_hosts2'],
      globalKnownHostsFiles: ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'],
      hostKeyName: '198.51.100.7',
      hostKeyPort: 22,
      hashKnownHosts: false,
      connectTimeoutMs: undefined,
      keepaliveIntervalMs: undefined,
      keepaliveCountMax: undefined,
      origins: { hostName: { kind: 'default' }, port: { kind: 'default' }, user: { kind: 'default' } },
      warnings: [],
    } satisfies SshHostSettings);
  });

  it('takes the explicit port over ssh_config (the Port-ignored complaint, TF#1170, the other way round)', () => {
    expect(resolve('Host h\n  Port 2200\n', 'h').port).toBe(2200);
    expect(resolve('Host h\n  Port 2200\n', { address: 'h', sshPort: 22 }).port).toBe(22);
  });

  it('reads the system config after the user config: the user wins, the system fills in', () => {
    const s = resolve('Host h\n  User mine\n', 'h', {
      system: { path: '/etc/ssh/ssh_config', text: 'Host *\n  User theirs\n  HashKnownHosts yes\n' },
    });
    expect(s).toMatchObject({ user: 'mine', hashKnownHosts: true });
  });

  it('reads known_hosts files, agent and timeouts from the config', () => {
    const s = resolve(
      [
        'Host h',
        '  UserKnownHostsFile ~/.ssh/kh_%h "~/my files/kh"',
        '  GlobalKnownHostsFile none',
        '  IdentityAgent ~/.agent.sock',
        '  IdentitiesOnly yes',
        '  ConnectTimeout 7',
        '  ServerAliveCountMax 5',
      ].join('\n'),
      'h',
    );
    expect(s).toMatchObject({
      userKnownHostsFiles: ['/home/ann/.ssh/kh_h', '/home/ann/my files/kh'],
      globalKnownHostsFiles: [],
      agentSocket: '/home/ann/.agent.sock',
      identitiesOnly: true,
      connectTimeoutMs: 7000,
      keepaliveCountMax: 5,
    });
    expect(resolve('Host h\n  IdentityAgent none\n', 'h').agentSocket).toBeUndefined();
    expect(resolve('Host h\n  IdentityAgent SSH_AUTH_SOCK\n', 'h').agentSocket).toBe('/run/user/1000/agent.sock');
    expect(resolveSshHost({ address: 'h' }, {}, { ...local, env: {} }).agentSocket).toBeUndefined();
    // The app may move the defaults (its own file, no system files); ssh_config still wins.
    const moved = { ...local, userKnownHostsFiles: ['/data/known_hosts'], globalKnownHostsFiles: [] };
    expect(resolveSshHost({ address: 'h' }, {}, moved)).toMatchObject({
      userKnownHostsFiles: ['/data/known_hosts'],
      globalKnownHostsFiles: [],
    });
    expect(
      resolveSshHost({ address: 'h' }, { user: { path: 'c', text: 'UserKnownHostsFile ~/kh' } }, moved)
        .userKnownHostsFiles,
    ).toEqual(['/home/ann/kh']);
  });

  it('applies Match blocks, never runs Match exec, and says so naming the file and line', () => {
    const marker = join(tmpdir(), `egress-match-exec-${process.pid}`);
    const s = resolve(`Match exec "touch ${marker}"\n  User matched\nMatch all\n  Port 9\nHost h\n  Port 2200\n`, 'h');
    expect(s).toMatchObject({ user: 'ann', port: 9 });
    expect(existsSync(marker)).toBe(false);
    expect(s.warnings).toEqual([
      { file: '/home/ann/.ssh/config', line: 1, message: expect.stringMatching(/^Match exec "touch .*" was not run/) },
    ]);
    // An earlier criterion that fails means ssh would not run it either: nothing to warn about.
    expect(resolve(`Match host other exec "touch ${marker}"\n  User matched\n`, 'h').warnings).toEqual([]);
  });

  it('refuses a Port OpenSSH refuses, in any block, naming file and line as ssh does', () => {
    expect(() => resolve('Host other\n  Port ssh-ish\n', 'h')).toThrow(SshConfigError);
    expect(() => resolve('Host other\n  Port ssh-ish\n', 'h')).toThrow(
      "/home/ann/.ssh/config line 2: Bad port 'ssh-ish'.",
    );
    const services = new Map([['ssh', 22]]);
    expect(
      resolveSshHost({ address: 'h' }, { user: { path: 'c', text: 'Port ssh\n' } }, { ...local, services }).port,
    ).toBe(22);
  });
});

describe('resolveSshHost: ProxyJump and ProxyCommand', () => {
  const config = [
    'Host target',
    '  HostName 10.0.0.5',
    '  ProxyJump bastion',
    'Host chained',
    '  HostName 10.0.0.6',
    '  ProxyJump ops@first:2022,second',
    'Host bastion first second',
    '  User jumper',
    '  IdentityFile ~/.ssh/jump_key',
    'Host second',
    '  HostName 192.0.2.2',
    'Host cmd',
    '  ProxyCommand ssh -W %h:%p gateway',
    '  ProxyJump ignored',
    'Host direct',
    '  ProxyJump none',
    'Host loop',
    '  ProxyJump loop',
  ].join('\n');

  it('resolves the jump host through its own Host block', () => {
    const s = resolve(config, 'target');
    expect(s.hostName).toBe('10.0.0.5');
    expect(s.jump).toMatchObject({
      alias: 'bastion',
      hostName: 'bastion',
      user: 'jumper',
      port: 22,
      identityFiles: ['/home/ann/.ssh/jump_key'],
      jump: undefined,
    });
  });

  it('reaches the last hop of a chain through the ones before it; user and port in the spec win', () => {
    const s = resolve(config, 'chained');
    expect(s.jump).toMatchObject({ alias: 'second', hostName: '192.0.2.2', user: 'jumper' });
    expect(s.jump?.jump).toMatchObject({ alias: 'first', user: 'ops', port: 2022, jump: undefined });
  });

  it('keeps whichever of ProxyCommand and ProxyJump comes first, and honours ProxyJump none', () => {
    expect(resolve(config, 'cmd')).toMatchObject({ proxyCommand: 'ssh -W %h:%p gateway', jump: undefined });
    expect(resolve(config, 'direct').jump).toBeUndefined();
  });

  it('stops a ProxyJump loop with a clear error', () => {
    expect(() => resolve(config, 'loop')).toThrow(/nests more than 8 hops deep/);
  });

  it.each([
    ['bastion', [{ host: 'bastion' }]],
    ['ops@bastion:2022', [{ host: 'bastion', user: 'ops', port: 2022 }]],
    ['ssh://ops@bastion:2022', [{ host: 'bastion', user: 'ops', port: 2022 }]],
    ['[2001:db8::1]:2200,b', [{ host: '2001:db8::1', port: 2200 }, { host: 'b' }]],
    ['a,b@c', [{ host: 'a' }, { host: 'c', user: 'b' }]],
    ['h/2200', [{ host: 'h', port: 2200 }]],
  ])('parses ProxyJump %s', (value, expected) => {
    expect(parseProxyJump(value)).toEqual(expected);
  });

  it('rejects an unreadable ProxyJump hop', () => {
    expect(() => parseProxyJump('a,,b')).toThrow(SshConfigError);
    expect(() => parseProxyJump('a:99999')).toThrow(/Invalid ProxyJump/);
    expect(() => parseProxyJump('2001:db8::1')).toThrow(/Invalid ProxyJump/);
  });
});

describe('Include', () => {
  it('applies included files as OpenSSH does, and nothing from an Include in a non-matching block', () => {
    const includes = new Map([
      ['/home/ann/.ssh/conf.d/*', [{ path: '/home/ann/.ssh/conf.d/lab', text: 'Host lab\n  Port 2300\n' }]],
      [
        '/home/ann/.ssh/only-for-other',
        [{ path: '/home/ann/.ssh/only-for-other', text: 'User leaked\nHost lab\n  User leaked\n' }],
      ],
    ]);
    const config = 'Include conf.d/*\nHost other\n  Include only-for-other\n';
    expect(resolve(config, 'lab', { includes })).toMatchObject({ port: 2300, user: 'ann' });
  });

  it('loadSshConfig reads the user file, Include globs in lexical order, and skips missing files', async () => {
    const home = tempDir('egress-sshcfg-');
    try {
      mkdirSync(join(home, '.ssh', 'conf.d'), { recursive: true });
      writeFileSync(join(home, '.ssh', 'config'), 'Include conf.d/*.conf ~/.ssh/absent\nHost *\n  User fallback\n');
      writeFileSync(join(home, '.ssh', 'conf.d', '20-b.conf'), 'Host lab\n  Port 2002\n');
      writeFileSync(join(home, '.ssh', 'conf.d', '10-a.conf'), 'Host lab\n  Port 2001\n  Include nested\n');
      writeFileSync(join(home, '.ssh', 'conf.d', '.hidden.conf'), 'Host lab\n  Port 1\n');
      writeFileSync(join(home, '.ssh', 'nested'), 'User nested\n');
      const sources = await loadSshConfig({ homeDir: home, systemConfigPath: null });
      expect([...(sources.includes?.get(`${home}/.ssh/conf.d/*.conf`) ?? [])].map((f) => f.path)).toEqual([
        `${home}/.ssh/conf.d/10-a.conf`,
        `${home}/.ssh/conf.d/20-b.conf`,
      ]);
      expect(
        resolveSshHost({ address: 'lab' }, sources, { ...local, homeDir: home, env: { ...local.env, HOME: home } }),
      ).toMatchObject({ port: 2001, user: 'nested' });
      expect(await loadSshConfig({ homeDir: join(home, 'nobody'), systemConfigPath: null })).toEqual({
        includes: new Map(),
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
