/**
 * Which ssh_config keywords OpenSSH 9.2 knows, and the argument checks it makes on the ones
 * the transport reads, with its own messages. OpenSSH refuses the whole file when any line,
 * in any block, fails these (ssh prints "FILE: terminating, N bad configuration options"),
 * so the app refuses it too rather than connect where `ssh` would not.
 *
 * The keyword list is OpenSSH 9.2's (Debian's build: its GSSAPI and keepalive additions
 * included); keywords the transport does not read are accepted with any arguments.
 */

/** Every keyword OpenSSH 9.2 accepts (including its deprecated and unsupported ones, which it only warns about). */
export const KNOWN_KEYWORDS: ReadonlySet<string> = new Set(
  (
    'host match include hostname port user sendenv setenv localcommand addkeystoagent addressfamily afstokenpassing batchmode ' +
    'bindaddress bindinterface canonicaldomains canonicalizefallbacklocal canonicalizehostname canonicalizemaxdots ' +
    'canonicalizepermittedcnames casignaturealgorithms certificatefile challengeresponseauthentication checkhostip cipher ' +
    'ciphers clearallforwardings compression compressionlevel connectionattempts connecttimeout controlmaster controlpath ' +
    'controlpersist dsaauthentication dynamicforward enableescapecommandline enablesshkeysign escapechar exitonforwardfailure ' +
    'fallbacktorsh fingerprinthash forkafterauthentication forwardagent forwardx11 forwardx11timeout forwardx11trusted ' +
    'gatewayports globalknownhostsfile globalknownhostsfile2 gssapiauthentication gssapiclientidentity gssapidelegatecredentials ' +
    'gssapikexalgorithms gssapikeyexchange gssapirenewalforcesrekey gssapiserveridentity gssapitrustdns hashknownhosts ' +
    'hostbasedacceptedalgorithms hostbasedauthentication hostbasedkeytypes hostkeyalgorithms hostkeyalias identitiesonly ' +
    'identityagent identityfile identityfile2 ignoreunknown ipqos kbdinteractiveauthentication kbdinteractivedevices ' +
    'kerberosauthentication kerberostgtpassing knownhostscommand localforward loglevel logverbose macs ' +
    'nohostauthenticationforlocalhost numberofpasswordprompts passwordauthentication permitlocalcommand permitremoteopen ' +
    'pkcs11provider preferredauthentications protocol protocolkeepalives proxycommand proxyjump proxyusefdpass ' +
    'pubkeyacceptedalgorithms pubkeyacceptedkeytypes pubkeyauthentication rekeylimit remotecommand remoteforward requesttty ' +
    'requiredrsasize revokedhostkeys rhostsauthentication rhostsrsaauthentication securitykeyprovider serveralivecountmax ' +
    'serveraliveinterval sessiontype setuptimeout skeyauthentication smartcarddevice stdinnull streamlocalbindmask ' +
    'streamlocalbindunlink stricthostkeychecking syslogfacility tcpkeepalive tisauthentication tunnel tunneldevice ' +
    'updatehostkeys useblacklistedkeys useprivilegedport userknownhostsfile userknownhostsfile2 useroaming usersh ' +
    'verifyhostkeydns visualhostkey xauthlocation'
  ).split(' '),
);

/** Keywords read as one argument: more is "extra arguments at end of line". */
const SINGLE = new Set([
  'hostname',
  'user',
  'port',
  'hostkeyalias',
  'identityfile',
  'identityfile2',
  'identityagent',
  'identitiesonly',
  'hashknownhosts',
  'connecttimeout',
  'serveraliveinterval',
  'serveralivecountmax',
  'canonicalizehostname',
  'canonicalizemaxdots',
  'ignoreunknown',
]);
const FLAGS = new Set(['identitiesonly', 'hashknownhosts']);
const TIMES = new Set(['connecttimeout', 'serveraliveinterval']);
const INTEGERS = new Set(['serveralivecountmax', 'canonicalizemaxdots']);

/** yes/no/true/false, any case (OpenSSH's multistate flag). */
export function parseFlag(value: string): boolean | undefined {
  const v = value.toLowerCase();
  if (v === 'yes' || v === 'true') return true;
  if (v === 'no' || v === 'false') return false;
  return undefined;
}

/** CanonicalizeHostname: no/yes/always. */
export function parseCanonicalize(value: string): 'no' | 'yes' | 'always' | undefined {
  const v = value.toLowerCase();
  if (v === 'always') return 'always';
  const flag = parseFlag(v);
  return flag === undefined ? undefined : flag ? 'yes' : 'no';
}

/** OpenSSH's `convtime`: `90`, `1m30s`, `1h`, `2d`, `1w`; undefined when invalid. */
export function parseTime(value: string): number | undefined {
  if (value === '') return undefined;
  let total = 0;
  let rest = value;
  while (rest !== '') {
    const m = /^\s*\+?(\d+)([sSmMhHdDwW]?)/.exec(rest);
    if (!m) return undefined;
    const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400, w: 604800 }[m[2]!.toLowerCase()]!;
    total += Number(m[1]) * unit;
    if (!Number.isSafeInteger(total) || total > 2 ** 31 - 1) return undefined;
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** OpenSSH's `strtonum`-style integer; a message when invalid. */
export function parseInteger(value: string): number | string {
  const m = /^\s*([+-]?)(\d+)$/.exec(value);
  if (!m) return 'integer value invalid.';
  const n = Number(m[2]) * (m[1] === '-' ? -1 : 1);
  if (n < 0) return 'integer value too small.';
  if (n > 2 ** 31 - 1) return 'integer value too large.';
  return n;
}

/** OpenSSH's `a2port`: a number 1–65535 or a TCP service name; undefined when bad. */
export function parsePort(value: string, services: ReadonlyMap<string, number> | undefined): number | undefined {
  const m = /^\s*\+?(\d+)$/.exec(value);
  const n = m ? Number(m[1]) : services?.get(value);
  return n !== undefined && n >= 1 && n <= 65535 ? n : undefined;
}

/**
 * The message OpenSSH prints for a line of a keyword it knows whose arguments it refuses,
 * e.g. `Bad port 'xx'.`; undefined when the line is acceptable. (Unknown keywords, Match
 * and ProxyJump are checked where they are read.)
 */
export function checkArguments(
  keyword: string,
  args: readonly string[],
  services: ReadonlyMap<string, number> | undefined,
): string | undefined {
  const arg = args[0] ?? '';
  let problem: string | undefined;
  if (keyword === 'port' && parsePort(arg, services) === undefined) problem = `Bad port '${arg}'.`;
  else if (FLAGS.has(keyword) && parseFlag(arg) === undefined) problem = `unsupported option "${arg}".`;
  else if (keyword === 'canonicalizehostname' && parseCanonicalize(arg) === undefined)
    problem = `unsupported option "${arg}".`;
  else if (TIMES.has(keyword) && parseTime(arg) === undefined) problem = 'invalid time value.';
  else if (INTEGERS.has(keyword)) {
    const n = parseInteger(arg);
    if (typeof n === 'string') problem = n;
  } else if ((keyword === 'host' || keyword === 'include') && args.some((a) => a === ''))
    problem = `keyword ${keyword} empty argument`;
  if (problem === undefined && SINGLE.has(keyword) && args.length > 1)
    problem = `keyword ${keyword} extra arguments at end of line`;
  return problem;
}
