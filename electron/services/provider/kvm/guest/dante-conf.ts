/**
 * Dante's (`danted`) configuration for a SOCKS5 proxy: the same port, allow list and
 * credentials as a tinyproxy one. Like tinyproxy's format, Dante's has no escaping, so
 * every value is checked against a strict pattern (the shared schemas) before it reaches
 * the file.
 *
 * - Clients outside the allow list are refused at connect (`client pass` / `client
 *   block`), before any SOCKS negotiation, as tinyproxy's `Allow` does.
 * - Username/password (RFC 1929) is Dante's `username` method, which checks the
 *   guest's password database: the user-data creates a dedicated account with no shell
 *   and no home for it ({@link DANTE_SCRIPTS}); without credentials the method is `none`.
 * - Only CONNECT is passed (no BIND, no UDP ASSOCIATE): a SOCKS proxy tunnels TCP to any
 *   port, which is what SOCKS clients ask it for.
 * - `external` (the address outgoing connections leave from) must name an interface the
 *   guest has, which is not known before boot: the file carries {@link EXTERNAL_PLACEHOLDER}
 *   and the user-data puts in the interface of the default route.
 */
import { z } from 'zod';
import { isCidr } from '../../../../../shared/net.js';
import { ProxyCredentialsSchema } from '../../../../../shared/proxy.js';

/** Replaced at first boot by the default route's interface (see DANTE_SCRIPTS.setExternal). */
export const EXTERNAL_PLACEHOLDER = '@EGRESS_EXTERNAL@';

/** A system account name Dante can check (Debian's useradd refuses a leading "-", "~" or "+", and digits only). */
const ACCOUNT = /^[A-Za-z_][A-Za-z0-9._-]{0,31}$/;

export const DanteSpecSchema = z.object({
  port: z.int().min(1).max(65535),
  allow: z
    .array(z.string().refine(isCidr, 'must be an IP address or CIDR block'))
    .min(1, 'at least one allowed client address or block is required'),
  credentials: ProxyCredentialsSchema.extend({
    username: ProxyCredentialsSchema.shape.username.regex(
      ACCOUNT,
      'a SOCKS5 user name must start with a letter or "_" and be at most 32 characters of letters, digits, ".", "_" and "-"',
    ),
  }).optional(),
});
export type DanteSpec = z.input<typeof DanteSpecSchema>;

/** Dante wants a prefix length on every address: a bare address is one host. */
function block(cidr: string): string {
  if (cidr.includes('/')) return cidr;
  return cidr.includes(':') ? `${cidr}/128` : `${cidr}/32`;
}

export function buildDanteConf(input: DanteSpec): string {
  const spec = DanteSpecSchema.parse(input);
  const rules = (kind: 'client' | 'socks', extra: string[]) => [
    ...spec.allow
      .map((cidr) => [`${kind} pass {`, `  from: ${block(cidr)} to: 0.0.0.0/0`, ...extra.map((l) => `  ${l}`), '}'])
      .flat(),
    `${kind} block {`,
    '  from: 0.0.0.0/0 to: 0.0.0.0/0',
    '  log: connect error',
    '}',
  ];
  return [
    '# Written by Egress Desk through cloud-init; changes are lost on the next launch.',
    'logoutput: syslog',
    `internal: 0.0.0.0 port = ${spec.port}`,
    `external: ${EXTERNAL_PLACEHOLDER}`,
    'clientmethod: none',
    `socksmethod: ${spec.credentials ? 'username' : 'none'}`,
    // The username method reads /etc/shadow: the privileged id is root, the rest runs as nobody.
    'user.privileged: root',
    'user.unprivileged: nobody',
    ...rules('client', ['log: error']),
    ...rules('socks', ['command: connect', 'log: error']),
    '',
  ].join('\n');
}

/**
 * The account Dante checks the credentials against, made once: an existing account of that
 * name (root, a system user) is never given the proxy's password; the boot fails instead.
 * The password reaches chpasswd on stdin, never on a command line.
 */
const CREATE_ACCOUNT = [
  'set -eu',
  'user="$1"; pass="$2"',
  'if id -u "$user" >/dev/null 2>&1; then',
  '  getent passwd "$user" | grep -q ":Egress Desk SOCKS5:" || { echo "account $user exists and is not ours" >&2; exit 1; }',
  'else',
  '  useradd --system --no-create-home --shell /usr/sbin/nologin --comment "Egress Desk SOCKS5" "$user"',
  'fi',
  'printf "%s:%s\\n" "$user" "$pass" | chpasswd',
].join('\n');

/** Puts the default route's interface into danted.conf (the first interface that is up, without one). */
const SET_EXTERNAL = [
  'set -eu',
  `conf="$1"`,
  'dev=$(ip -o route show default | sed -n "s/.* dev \\([^ ]*\\).*/\\1/p" | head -n1)',
  '[ -n "$dev" ] || dev=$(ip -o link show up | awk -F": " \'$2 != "lo" {print $2; exit}\')',
  '[ -n "$dev" ] || { echo "no network interface for danted" >&2; exit 1; }',
  `sed -i "s/${EXTERNAL_PLACEHOLDER}/$dev/" "$conf"`,
].join('\n');

/** The runcmd scripts, exported for the unit test that runs them against stand-in commands. */
export const DANTE_SCRIPTS = { createAccount: CREATE_ACCOUNT, setExternal: SET_EXTERNAL } as const;
