/**
 * The NoCloud seed's documents: user-data (tinyproxy or Dante configured and started,
 * hostname set), meta-data (instance-id, local-hostname) and vendor-data (from the config). YAML
 * is produced by the yaml package from data, never by pasting user input into text.
 */
import { stringify } from 'yaml';
import { DNS_LABEL } from '../../../../../shared/config.js';
import type { ProxyKind } from '../../../../../shared/proxy.js';
import { buildTinyproxyConf, type TinyproxySpec } from './tinyproxy-conf.js';
import { DANTE_SCRIPTS, buildDanteConf } from './dante-conf.js';
import { PROXY_SOFTWARE } from './proxy-software.js';

/** cloud-init reads seeds of any size, but ours travel in an ISO and in previews: keep them small. */
export const MAX_USER_DATA_BYTES = 64 * 1024;
export const MAX_VENDOR_DATA_BYTES = 256 * 1024;

export interface UserDataSpec {
  hostname: string;
  /** Absent = http (tinyproxy). */
  kind?: ProxyKind;
  proxy: TinyproxySpec;
  /**
   * The base is baked (bake-recipe.ts): its packages are installed already, so vendor-data's
   * package installs are switched off (an empty `packages` and no list refresh replace
   * vendor-data's keys in cloud-init's merge) and the first boot needs no mirror.
   */
  baked?: boolean;
}

function checkHostname(hostname: string): void {
  if (!DNS_LABEL.test(hostname)) throw new Error(`hostname ${JSON.stringify(hostname)} must be a lowercase DNS label`);
}

function checkSize(what: string, text: string, max: number): string {
  const size = Buffer.byteLength(text, 'utf8');
  if (size > max) throw new Error(`${what} is ${size} bytes; at most ${max} bytes are allowed`);
  return text;
}

/**
 * Installs a kind's packages when the image lacks its binary. `apt-get install` is tried
 * first: when vendor-data's `packages` ran (the default vendor-data's does), cloud-init
 * has just refreshed the package lists, and a second `apt-get update` would cost the
 * first boot tens of seconds under TCG; only when that fails (no lists, stale lists) are
 * they refreshed. `--force-confold` keeps our configuration, written before the package.
 */
function installScript(kind: ProxyKind): string {
  const { binary, packages } = PROXY_SOFTWARE[kind];
  return [
    `command -v ${binary} >/dev/null && exit 0`,
    'export DEBIAN_FRONTEND=noninteractive',
    `install() { apt-get install -y -o Dpkg::Options::=--force-confold ${packages.join(' ')}; }`,
    'install || { apt-get update && install; }',
  ].join('\n');
}
const INSTALL_TINYPROXY = installScript('http');

/**
 * Starts qemu-guest-agent when it is installed but not running, which is what an image
 * without the agent is left with after vendor-data's `packages` installed it at first boot
 * (seen on a booted guest: unit `static`, `inactive`, while the port's `.device` unit is
 * active):
 * - vendor-data cannot start it: cloud-init (22.4, Debian 12) merges user-data over
 *   vendor-data key by key (dict `no_replace`, lists not appended; `merge_how` is popped
 *   from both before that merge), so this user-data's `runcmd` replaces vendor-data's;
 * - the package does not: Debian's unit has an empty `[Install]`, and deb-systemd-invoke
 *   does not start a static unit; its udev rule (`SYSTEMD_WANTS` on the
 *   `org.qemu.guest_agent.0` port) pulls it in only when the port appears, at the next boot.
 * Without the port's device node (a domain without the agent channel) there is nothing to
 * bind to (the unit `BindsTo=` the port), and a start would only wait: skipped.
 */
const START_AGENT = [
  'command -v qemu-ga >/dev/null || exit 0',
  'systemctl is-active --quiet qemu-guest-agent && exit 0',
  '[ -e /dev/virtio-ports/org.qemu.guest_agent.0 ] || exit 0',
  'systemctl start qemu-guest-agent',
].join('\n');

/** The runcmd scripts, exported for the unit test that runs them against stand-in commands. */
export const USER_DATA_SCRIPTS = {
  installTinyproxy: INSTALL_TINYPROXY,
  installDante: installScript('socks5'),
  startAgent: START_AGENT,
} as const;

/** The file and the commands that make the guest serve one kind of proxy. */
function proxySetup(spec: UserDataSpec): { file: { path: string; content: string }; commands: string[][] } {
  const kind = spec.kind ?? 'http';
  const { unit, configPath } = PROXY_SOFTWARE[kind];
  // On a baked base tinyproxy has already started after write_files (bake-recipe.ts's
  // drop-in), with this configuration: a restart here would only drop the connections of
  // clients that saw it ready.
  const restart =
    spec.baked && kind === 'http'
      ? ['sh', '-c', `systemctl is-active --quiet ${unit} || systemctl restart ${unit}`]
      : ['systemctl', 'restart', unit];
  const start = [['systemctl', 'enable', unit], restart];
  if (kind === 'http') {
    return {
      file: { path: configPath, content: buildTinyproxyConf(spec.proxy) },
      commands: [['sh', '-c', INSTALL_TINYPROXY], ...start],
    };
  }
  const { port, allow, credentials } = spec.proxy;
  const content = buildDanteConf({ port, allow, ...(credentials ? { credentials } : {}) });
  return {
    file: { path: configPath, content },
    commands: [
      ['sh', '-c', installScript(kind)],
      ['sh', '-c', DANTE_SCRIPTS.setExternal, 'set-external', configPath],
      // The account Dante checks the password against (arguments, not text in a script).
      ...(credentials
        ? [['sh', '-c', DANTE_SCRIPTS.createAccount, 'create-account', credentials.username, credentials.password]]
        : []),
      ...start,
    ],
  };
}

/**
 * user-data: writes the proxy's configuration (tinyproxy.conf or danted.conf), installs
 * the server when missing, (re)starts it, and starts the guest agent when vendor-data
 * installed one. The keys set here (`hostname`, `manage_etc_hosts`, `write_files`,
 * `runcmd`) replace vendor-data's keys of the same name in cloud-init's merge;
 * `packages`, `apt`, `bootcmd`, … stay vendor-data's.
 */
export function buildUserData(spec: UserDataSpec): string {
  checkHostname(spec.hostname);
  const setup = proxySetup(spec);
  const doc = {
    hostname: spec.hostname,
    manage_etc_hosts: true,
    ...(spec.baked ? { packages: [], package_update: false, package_upgrade: false } : {}),
    write_files: [{ path: setup.file.path, owner: 'root:root', permissions: '0644', content: setup.file.content }],
    runcmd: [...setup.commands, ['sh', '-c', START_AGENT]],
  };
  return checkSize('user-data', `#cloud-config\n${stringify(doc, { lineWidth: 0 })}`, MAX_USER_DATA_BYTES);
}

/** meta-data: the instance id (a new one makes cloud-init run again) and the hostname. */
export function buildMetaData(instanceId: string, hostname: string): string {
  checkHostname(hostname);
  if (!DNS_LABEL.test(instanceId))
    throw new Error(`instance id ${JSON.stringify(instanceId)} must be a lowercase DNS label`);
  return stringify({ 'instance-id': instanceId, 'local-hostname': hostname });
}

/** vendor-data: the config's, as it is (it may be any format cloud-init reads). */
export function buildVendorData(vendorData: string): string {
  return checkSize('vendor-data', vendorData, MAX_VENDOR_DATA_BYTES);
}
