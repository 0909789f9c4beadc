/**
 * Fuzzing ssh_config (user, system and included files) through its public entry point,
 * `resolveSshHost`. Whatever the text: settings or an SshConfigError, never another
 * exception. (known_hosts text: known-hosts-text.test.ts.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SshConfigSources, type SshHostSettings, resolveSshHost } from '../../../electron/transport/ssh-config.js';
import { SshConfigError } from '../../../electron/transport/ssh-errors.js';
import { FUZZ_TEST_TIMEOUT_MS, describeThrown, fuzzParams, withinBudget } from './fuzz-params.js';

const HOME = '/home/fuzz';
const LOCAL = { homeDir: HOME, localUser: 'fuzz', env: { SSH_AUTH_SOCK: '/run/agent.sock', KEYS: '/keys' }, uid: 1000 };

/** Config files of the kinds people write: aliases, jumps, includes, quoting, `=` syntax, Match blocks. */
const CONFIG_SEEDS = [
  `# personal
Host edge-a
  HostName 203.0.113.10
  User root
  Port 2222
  IdentityFile ~/.ssh/id_edge
  IdentitiesOnly yes

Host edge-b edge-c !edge-d
  HostName %h.example.net
  ProxyJump bastion,ops@jump2:2200
  UserKnownHostsFile ~/.ssh/known_hosts.d/%k

Host bastion
  HostName bastion.example.net
  ProxyCommand ssh -W %h:%p gateway

Match host *.internal exec "true"
  User internal

Host *
  ServerAliveInterval 30
  ServerAliveCountMax 3
  IdentityAgent \${SSH_AUTH_SOCK}
  Include config.d/*
`,
  `Host="quoted name" other
	HostName="10.0.0.1"
	Port=22
	IdentityFile "/path with spaces/key" %d/.ssh/id_%r
	HostKeyAlias alias-%n
	GlobalKnownHostsFile none
	ConnectTimeout 5
Host loop
	ProxyJump loop
	Include loop.d/*
`,
  `Include /etc/ssh/ssh_config.d/*.conf
Host *
	HashKnownHosts yes
	IdentityAgent none
	ProxyJump none
`,
];

/** The files Include lines name, by the absolute pattern (SshConfigSources.includes). */
const INCLUDES: SshConfigSources['includes'] = new Map([
  [`${HOME}/.ssh/config.d/*`, [{ path: `${HOME}/.ssh/config.d/inc`, text: 'Host inc\n  Port 2200\n' }]],
  // A file that includes itself: resolution must stop with an SshConfigError, not recurse forever.
  [`${HOME}/.ssh/loop.d/*`, [{ path: `${HOME}/.ssh/loop.d/self`, text: 'Port 2201\nInclude loop.d/*\n' }]],
  ['/etc/ssh/ssh_config.d/*.conf', [{ path: '/etc/ssh/ssh_config.d/a.conf', text: 'Host *\n  User sys\n' }]],
]);

const KEYWORDS = [
  'Host',
  'Match',
  'HostName',
  'User',
  'Port',
  'IdentityFile',
  'IdentitiesOnly',
  'IdentityAgent',
  'ProxyJump',
  'ProxyCommand',
  'Include',
  'HostKeyAlias',
  'UserKnownHostsFile',
  'GlobalKnownHostsFile',
  'HashKnownHosts',
  'ConnectTimeout',
  'ServerAliveInterval',
  'ServerAliveCountMax',
  'host',
  'PORT',
  'Unknown',
];
const VALUE_PIECES = [
  '',
  '*',
  '?',
  '!',
  '!*',
  '%h',
  '%%',
  '%',
  '%z',
  '${HOME}',
  '${',
  '$KEYS',
  '~',
  '~/',
  '/',
  'none',
  'yes',
  'no',
  '0',
  '22',
  '65536',
  '-1',
  '99999999999999999999',
  'a,b',
  ',',
  '@',
  'u@h:1',
  '[::1]:22',
  'ssh://u@h:22/',
  '"',
  '""',
  "'",
  '=',
  '\\',
  '#',
  ' ',
  '\t',
  'edge-a',
  'bastion',
  'loop',
  'inc',
  'é',
  '\u0000',
  '\r',
];

const value = fc
  .array(fc.oneof(fc.constantFrom(...VALUE_PIECES), fc.string({ maxLength: 6 })), { maxLength: 4 })
  .map((parts) => parts.join(''));
const configLine = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...KEYWORDS),
        fc.constantFrom(' ', '=', ' = ', '\t', '  '),
        value,
        fc.constantFrom('', ' # c', '\r'),
      )
      .map(([k, sep, v, end]) => `${k}${sep}${v}${end}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '#',
      '  ',
      'Host',
      'Match',
      'Include',
      'Host ""',
      'Host "unterminated',
      'IdentityFile',
      '=',
      '==',
      ' = x',
      'Match all',
      'Match !host x',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);

type ConfigEdit =
  | { kind: 'insert' | 'replace'; line: number; text: string }
  | { kind: 'delete'; line: number }
  | { kind: 'chars'; at: number; text: string };
const configEdit: fc.Arbitrary<ConfigEdit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('insert' as const, 'replace' as const), line: fc.nat(), text: configLine }),
  fc.record({ kind: fc.constant('delete' as const), line: fc.nat() }),
  fc.record({
    kind: fc.constant('chars' as const),
    at: fc.nat(),
    text: fc.oneof(fc.constantFrom('"', '=', ' ', '\n', '\t', '#', '%', '\\', '!', ','), fc.string({ maxLength: 4 })),
  }),
);

function editConfig(text: string, edits: readonly ConfigEdit[]): string {
  let lines = text.split('\n');
  for (const e of edits) {
    const i = lines.length === 0 ? 0 : (e.kind === 'chars' ? 0 : e.line) % lines.length;
    if (e.kind === 'insert') lines.splice(i, 0, e.text);
    else if (e.kind === 'replace') lines[i] = e.text;
    else if (e.kind === 'delete') lines.splice(i, 1);
    else if (e.kind === 'chars') {
      const joined = lines.join('\n');
      const at = e.at % (joined.length + 1);
      lines = (joined.slice(0, at) + e.text + joined.slice(at)).split('\n');
    }
  }
  return lines.join('\n');
}

const target = fc.record(
  {
    address: fc.oneof(
      fc.constantFrom(
        'edge-a',
        'edge-b',
        'edge-c',
        'edge-d',
        'bastion',
        'loop',
        'inc',
        'x.internal',
        'other',
        'quoted name',
        'EDGE-A',
        ' ',
        '',
      ),
      fc.string({ maxLength: 12 }),
    ),
    sshUser: fc.constantFrom('root', 'u'),
    sshPort: fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.constantFrom(0, 65536, -1, 1.5)),
    identityFile: fc.constantFrom('~/k', '%d/k', '${KEYS}/k', ' ', ''),
  },
  { requiredKeys: ['address'] },
);

/**
 * Walks the jump chain: finite, each hop with a host to dial and a port in range. Only the
 * fields a connection cannot do without, so that the fuzz holds while resolution changes.
 */
function checkSettings(s: SshHostSettings): void {
  let hop: SshHostSettings | undefined = s;
  for (let depth = 0; hop; depth++, hop = hop.jump) {
    expect(depth).toBeLessThanOrEqual(16);
    expect(Number.isInteger(hop.port) && hop.port >= 1 && hop.port <= 65535, `port ${hop.port}`).toBe(true);
    expect(typeof hop.hostName).toBe('string');
  }
}

function resolveChecked(t: Parameters<typeof resolveSshHost>[0], sources: SshConfigSources): void {
  let settings: SshHostSettings;
  try {
    settings = resolveSshHost(t, sources, LOCAL);
  } catch (err) {
    if (!(err instanceof SshConfigError))
      expect.fail(`resolveSshHost threw something other than SshConfigError: ${describeThrown(err)}`);
    expect(err.message).toMatch(/\S/);
    return;
  }
  checkSettings(settings);
}

describe('fuzz: ssh_config', () => {
  it('the seeds resolve (the fuzz starts from configs that work)', () => {
    const settings = resolveSshHost(
      { address: 'edge-b' },
      { user: { path: `${HOME}/.ssh/config`, text: CONFIG_SEEDS[0]! }, includes: INCLUDES },
      LOCAL,
    );
    expect(settings.jump?.alias).toBe('jump2');
    expect(() =>
      resolveSshHost(
        { address: 'loop' },
        { user: { path: `${HOME}/.ssh/config`, text: CONFIG_SEEDS[1]! }, includes: INCLUDES },
        LOCAL,
      ),
    ).toThrow(SshConfigError);
  });

  it(
    'mutated user, system and included files: settings or SshConfigError, never another exception',
    () => {
      const cases = fc.record({
        user: fc.tuple(fc.nat(CONFIG_SEEDS.length - 1), fc.array(configEdit, { minLength: 1, maxLength: 5 })),
        system: fc.option(fc.tuple(fc.nat(CONFIG_SEEDS.length - 1), fc.array(configEdit, { maxLength: 3 })), {
          nil: undefined,
        }),
        target,
      });
      fc.assert(
        fc.property(cases, ({ user, system, target: t }) => {
          const sources: SshConfigSources = {
            user: { path: `${HOME}/.ssh/config`, text: editConfig(CONFIG_SEEDS[user[0]]!, user[1]) },
            ...(system
              ? { system: { path: '/etc/ssh/ssh_config', text: editConfig(CONFIG_SEEDS[system[0]]!, system[1]) } }
              : {}),
            includes: INCLUDES,
          };
          withinBudget(400, () => resolveChecked(t, sources));
        }),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it(
    'arbitrary text as ssh_config: settings or SshConfigError',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({ maxLength: 200 }),
            fc.array(configLine, { maxLength: 12 }).map((l) => l.join('\n')),
          ),
          target,
          (text, t) => {
            withinBudget(400, () =>
              resolveChecked(t, { user: { path: `${HOME}/.ssh/config`, text }, includes: INCLUDES }),
            );
          },
        ),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
