/**
 * Our ssh_config resolution against OpenSSH's own: `ssh -G` (prints the effective settings,
 * no network) over many configs, setting by setting, jump hops included. How the two are run
 * and compared, and why the comparison is fair, is openssh-compare.ts.
 *
 * Deliberate differences: `Match exec` is never run, and `%j` is expanded (OpenSSH 9.6+)
 * where 9.2 refuses it, each tested as such in ssh-config-openssh-differences.test.ts; the
 * default key list leaves out the security-key and XMSS files ssh2 cannot use (the
 * comparison leaves them out of ssh's list).
 */
import { describe, expect, it } from 'vitest';
import { loadSshConfig } from '../../../electron/transport/ssh-config-load.js';
import { resolveSshHost, type SshHostSettings, type SshTarget } from '../../../electron/transport/ssh-config.js';
import { SshConfigError } from '../../../electron/transport/ssh-errors.js';
import { skipBecause } from '../../support/skip.js';
import {
  type Case,
  compareChain,
  fill,
  setUp,
  sshG,
  sshLoadedKeys,
  sshPresent,
  useOpenSshSandbox,
} from './openssh-compare.js';

const sandbox = useOpenSshSandbox();

/** One config seen from several aliases: a case for each, named `name (alias)`. */
function eachAlias(name: string, config: string, aliases: readonly string[]): Case[] {
  return aliases.map((alias) => ({ name: `${name} (${alias})`, config, alias }));
}

/** A config seen from the alias `a`, the usual case. */
function onA(name: string, config: string): Case {
  return { name, config, alias: 'a' };
}

const cases: Case[] = [
  onA('a Host block', 'Host a\n  HostName 192.0.2.10\n  User ops\n  Port 2200\n'),
  onA('first value obtained wins', 'Host a\n  Port 2201\nHost *\n  Port 2\n  User star\n'),
  ...eachAlias('Host patterns compare case', 'Host Foo\n  Port 2202\nHost foo\n  Port 2203\n', ['Foo', 'foo']),
  {
    name: 'an alias in mixed case is connected to in lower case',
    config: 'Host *\n  User x\n',
    alias: 'MiXeD.Example',
  },
  onA('HostName in mixed case', 'Host a\n  HostName Bar.Example\n'),
  { name: 'an IPv6 HostName keeps its case', config: 'Host v6\n  HostName 2001:DB8::1\n', alias: 'v6' },
  { name: 'an IPv6 address as the alias', config: 'Host 2001:db8::*\n  User six\n', alias: '2001:db8::2' },
  ...eachAlias('a negated pattern excludes', 'Host * !db*\n  User web\nHost *\n  User other\n', ['db1', 'web1']),
  ...eachAlias('? is exactly one character', 'Host db?\n  Port 2204\n', ['db1', 'db10']),
  { name: 'several patterns on a Host line', config: 'Host x y z\n  Port 2205\n', alias: 'y' },
  onA('= separators', 'Host=a\nPort=2206\nUser = eq\nHostName =h.example\n'),
  onA('= with spaces, and before a path', 'Host a\n  Port = 2207\n  User= eqsp\n  IdentityFile =@D/k1\n'),
  onA('CRLF line ends', 'Host a\r\n  User crlf\r\n  Port 2208\r\n'),
  onA('double quotes', 'Host a\n  IdentityFile "@D/my key"\n  User "quoted"\n'),
  onA('single quotes', "Host a\n  IdentityFile '@D/single q'\n"),
  onA('# inside a word is part of it', 'Host a\n  User ops#2\n  HostName h#1.example # a comment\n'),
  onA('comments and tabs', '# top\n\tHost a\n\t\tUser tab # comment\n\n'),
  onA(
    'IdentityFile accumulates, duplicates kept once',
    'Host a\n  IdentityFile @D/x\n  IdentityFile @D/y\nHost *\n  IdentityFile @D/x\n  IdentityFile @D/z\n',
  ),
  {
    name: 'tokens in IdentityFile',
    config:
      'Host a\n  HostName H.example\n  User R\n  Port 2209\n  IdentityFile ~/.ssh/id_%h_%r_%p_%u_%l_%L_%n_%k_%i_%C\n  IdentityFile %d/k_%%\n',
    alias: 'a',
    expandKeys: true,
  },
  {
    name: '${VAR} and ${HOME} in IdentityFile',
    config: 'Host a\n  IdentityFile ${EGTEST_VAR}/k\n  IdentityFile ${HOME}/k2\n  IdentityFile ~/k3\n',
    alias: 'a',
    expandKeys: true,
  },
  {
    name: 'HostKeyAlias in %k',
    config: 'Host a\n  HostKeyAlias MyAlias\n  IdentityFile ~/k_%k_%n\n',
    alias: 'a',
    expandKeys: true,
  },
  onA(
    'tokens in UserKnownHostsFile',
    'Host a\n  HostName kh.example\n  UserKnownHostsFile ~/kh_%h_%p %d/kh_%r ${HOME}/kh_%C\n',
  ),
  onA(
    'UserKnownHostsFile none, GlobalKnownHostsFile list',
    'Host a\n  UserKnownHostsFile none\n  GlobalKnownHostsFile @D/g1 @D/g2\n',
  ),
  onA('HostKeyAlias, lower-cased', 'Host a\n  HostKeyAlias MyAlias\n  UserKnownHostsFile ~/kh_%k\n'),
  onA('IdentityAgent path with tokens', 'Host a\n  IdentityAgent ~/agent_%h.sock\n'),
  onA('IdentityAgent none', 'Host a\n  IdentityAgent none\n'),
  onA('IdentityAgent SSH_AUTH_SOCK', 'Host a\n  IdentityAgent SSH_AUTH_SOCK\n'),
  onA('IdentityAgent $VAR', 'Host a\n  IdentityAgent $EGTEST_VAR\n'),
  onA('IdentitiesOnly and HashKnownHosts', 'Host a\n  IdentitiesOnly yes\n  HashKnownHosts true\n'),
  onA('time values with units', 'Host a\n  ConnectTimeout 1m30s\n  ServerAliveInterval 1h\n  ServerAliveCountMax 5\n'),
  onA('ConnectTimeout 0', 'Host a\n  ConnectTimeout 0\n'),
  onA('weeks and days', 'Host a\n  ServerAliveInterval 1w2d\n'),
  onA('Match all', 'Match all\n  User mall\n'),
  onA('Match host sees HostName', 'Host a\n  HostName real.example\nMatch host real.example\n  User mhost\n'),
  { name: 'Match host ignores case', config: 'Match host A*\n  User upper\n', alias: 'abc' },
  onA(
    'Match originalhost',
    'Host a\n  HostName real.example\nMatch originalhost a\n  Port 2210\nMatch host a\n  User no\n',
  ),
  { name: 'Match user sees -l', config: 'Match user ops\n  Port 2211\n', alias: 'a', user: 'ops' },
  onA('Match user sees an earlier User', 'Host a\n  User cfguser\nMatch user cfg*\n  Port 2212\n'),
  onA('Match user compares case', 'Host a\n  User Ops\nMatch user ops\n  Port 2213\n'),
  onA('Match localuser', 'Match localuser @U\n  Port 2214\n'),
  onA('Match !localuser', 'Match !localuser @U\n  Port 2215\nHost *\n  Port 2216\n'),
  onA(
    'Match final: a second pass where Host sees the HostName',
    'Host a\n  HostName Real.Example\nMatch final host real.example\n  User fin\nHost real.example\n  Port 2217\n',
  ),
  onA('no second pass without Match final', 'Host a\n  HostName Real.Example\nHost real.example\n  Port 2218\n'),
  onA('Match canonical without canonicalization', 'Match canonical\n  Port 2219\n'),
  onA(
    'CanonicalizeHostname yes makes a second pass',
    'Host a\n  HostName real.example\nMatch canonical\n  Port 2220\nHost *\n  CanonicalizeHostname yes\n',
  ),
  onA('Match exec of a failing command', 'Match exec false\n  User ex\nHost a\n  Port 2221\n'),
  onA('Match exec after a failed criterion is not run', 'Match host nomatch exec true\n  User ex\n'),
  onA('Match with a comment', 'Match host a # only a\n  User mc\n'),
  onA('Match with lists and several criteria', 'Match host a,b user root,@U,ops\n  Port 2222\n'),
  onA('Match ends a Host block', 'Host a\n  User h\nMatch host zzz\n  Port 1\n  User m\nHost a\n  Port 2223\n'),
  {
    name: 'Include with an absolute glob, in order',
    config: 'Include @D/inc/*.conf\n',
    alias: 'a',
    files: {
      'inc/20-b.conf': 'Host a\n  Port 2\n  User b\n',
      'inc/10-a.conf': 'Host a\n  Port 2224\n',
      'inc/.hidden.conf': 'Host a\n  User hidden\n',
    },
  },
  {
    name: 'Include relative to ~/.ssh',
    config: 'Include rel.conf\n',
    alias: 'a',
    files: { '@H/.ssh/rel.conf': 'Host a\n  Port 2225\n' },
  },
  {
    name: 'Include with ~',
    config: 'Include ~/.ssh/tilde.conf\n',
    alias: 'a',
    files: { '@H/.ssh/tilde.conf': 'Host a\n  Port 2226\n' },
  },
  {
    name: 'Include in a non-matching block contributes nothing',
    config: 'Host other\n  Include @D/inc2\nHost a\n  Port 2227\n',
    alias: 'a',
    files: { inc2: 'User leaked\nHost a\n  Port 1\n' },
  },
  {
    name: "Include keeps its caller's block",
    config: 'Host a\n  Include @D/inc3\n  Port 2228\n',
    alias: 'a',
    files: { inc3: 'Host zzz\n  User no\n' },
  },
  {
    name: 'nested relative Include',
    config: 'Include @D/inc4\n',
    alias: 'a',
    files: { inc4: 'Include nested.conf\n', '@H/.ssh/nested.conf': 'Host a\n  User nested\n' },
  },
  onA('an Include matching nothing', 'Include @D/none*\nHost a\n  User x\n'),
  onA(
    'ProxyJump through an alias with its own block',
    'Host a\n  HostName 10.0.0.5\n  ProxyJump bastion\nHost bastion\n  HostName 192.0.2.1\n  User jumper\n  Port 2022\n  IdentityFile @D/jump\n',
  ),
  onA(
    'a ProxyJump chain: the last hop gets -J for the others, its own ProxyJump loses',
    'Host a\n  ProxyJump ops@first:2022,second\nHost first second\n  User jumper\nHost second\n  HostName 192.0.2.2\n  ProxyJump ignored\nHost first\n  ProxyJump zero\n',
  ),
  onA('ProxyJump as ssh://', 'Host a\n  ProxyJump ssh://u@j.example:2200\n'),
  onA('ProxyJump to an IPv6 address', 'Host a\n  ProxyJump [2001:db8::1]:2222\n'),
  onA('ProxyJump none wins when first', 'Host a\n  ProxyJump none\nHost *\n  ProxyJump b\n'),
  onA('ProxyCommand first wins over ProxyJump', 'Host a\n  ProxyCommand ssh -W %h:%p gw\n  ProxyJump x\n'),
  onA('ProxyJump first wins over ProxyCommand', 'Host a\n  ProxyJump x\n  ProxyCommand nc %h %p\n'),
  onA('ProxyJump with a comment', 'Host a\n  ProxyJump b # via b\n'),
  onA(
    'a jump hop configured by Match',
    'Host a\n  ProxyJump hop\nMatch originalhost hop\n  User hopuser\n  Port 2023\n',
  ),
  {
    name: '-l and -p win over the config',
    config: 'Host a\n  User cfg\n  Port 2000\n',
    alias: 'a',
    user: 'cli',
    port: 2300,
  },
  { name: '-i comes first', config: 'Host a\n  IdentityFile @D/cfgkey\n', alias: 'a', identity: '@D/appkey' },
  {
    name: '-i and the same IdentityFile: both listed, as ssh lists them',
    config: 'Host a\n  IdentityFile @D/appkey\n  IdentityFile @D/other\n',
    alias: 'a',
    identity: '@D/appkey',
  },
  onA('Port as a service name', 'Host a\n  Port ssh\n'),
  onA('IgnoreUnknown', 'IgnoreUnknown Frob*,other\nHost a\n  FrobNicate yes\n  User ig\n'),
  { name: 'nothing configured', config: '', alias: 'plain' },
  onA('IdentityFile none', 'Host a\n  IdentityFile none\n'),
  onA('refused: a bad Port in a block that does not apply', 'Host other\n  Port 99999\nHost a\n  User x\n'),
  onA('refused: an unknown keyword', 'Host other\n  Frobnicate x\n'),
  onA('refused: extra arguments', 'Host a\n  Port 22 33\n'),
  onA('refused: invalid quotes', 'Host a\n  User "unterminated\n'),
  onA('refused: no argument', 'Host a\n  User\n'),
  onA('refused: only a comment after the keyword (found by the fuzzer)', 'Host a\n  HostName  # c\n'),
  onA('refused: a bad time', 'Host a\n  ConnectTimeout 1x\n'),
  onA('refused: a bad flag', 'Host a\n  IdentitiesOnly maybe\n'),
  onA('refused: an unknown Match criterion', 'Match frob x\n  User x\n'),
  onA('refused: Match all with another criterion', 'Match all host a\n  User x\n'),
  onA('refused: Match without its argument', 'Match host\n  User x\n'),
  onA('refused: a bare IPv6 ProxyJump', 'Host a\n  ProxyJump 2001:db8::1\n'),
  onA('refused: an unknown token', 'Host a\n  IdentityAgent ~/agent_%z\n'),
  onA('refused: an unset variable', 'Host a\n  UserKnownHostsFile ${EGTEST_UNSET_VAR}/kh\n'),
  {
    name: 'refused: a bad Port in an included file',
    config: 'Include @D/bad.conf\n',
    alias: 'a',
    files: { 'bad.conf': 'Port 0\n' },
  },
];

describe('ssh_config resolution agrees with OpenSSH (ssh -G)', () => {
  it('covers at least 60 configs', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.for(cases.map((c, i) => [c.name, c, i] as const))('%s', async ([, c, index], ctx) => {
    if (!sshPresent) skipBecause(ctx, 'OpenSSH (ssh) is not installed: nothing to compare with');
    const { dir, config } = setUp(c, index);
    const identity = c.identity ? fill(c.identity, dir) : undefined;
    const opts = {
      ...(c.user !== undefined ? { user: c.user } : {}),
      ...(c.port !== undefined ? { port: c.port } : {}),
      ...(identity !== undefined ? { identity } : {}),
    };
    const ssh = sshG(config, c.alias, opts);
    const sources = await loadSshConfig({ homeDir: sandbox.home, userConfigPath: config, systemConfigPath: null });
    const target: SshTarget = {
      address: c.alias,
      ...(c.user !== undefined ? { sshUser: c.user } : {}),
      ...(c.port !== undefined ? { sshPort: c.port } : {}),
      ...(identity !== undefined ? { identityFile: identity } : {}),
    };
    let ours: SshHostSettings | undefined;
    let error: unknown;
    try {
      ours = resolveSshHost(target, sources, sandbox.local);
    } catch (err) {
      error = err;
    }
    if (ssh.status !== 0) {
      // ssh refuses the config: so must we, with every "FILE line N: …" message ssh printed.
      expect(error, `ssh refused it (${ssh.stderr.trim()}), we did not`).toBeInstanceOf(SshConfigError);
      for (const m of ssh.stderr.matchAll(/^(\S+?:? line \d+: .*?)\.?$/gm))
        expect((error as Error).message).toContain(m[1]);
      return;
    }
    expect(error, `ssh accepted it, we refused: ${String(error)}`).toBeUndefined();
    expect(compareChain(ours!, ssh, config, c.alias)).toEqual([]);
    if (c.expandKeys) expect(ours!.identityFiles).toEqual(sshLoadedKeys(config, c.alias));
  });
});
