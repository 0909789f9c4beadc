/**
 * What a baked base volume holds, and what it is called. A host's baked base is the plain
 * base image booted once with the proxy software and the guest agent installed, then
 * cleaned (`cloud-init clean`) and powered off: later launches on that host back onto it
 * and their first boot installs nothing. Its name carries the image's digest and the hash
 * of the recipe, so a change to what is baked (another package, another cleanup) gives a
 * new name; the old one is then unused and pruned like a base volume (base-prune.ts).
 *
 *   image digest + recipe → `egress-baked-<sha256>-<recipe hash>.qcow2`
 *
 * Pure: no I/O. The proxy software's packages come from proxy-software.ts (the table a new
 * kind adds its row to); one baked image carries every kind's, so it serves them all.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { stringify } from 'yaml';
import { PROXY_SOFTWARE, proxyPackages } from './proxy-software.js';
import { TINYPROXY_CONF_END } from './tinyproxy-conf.js';

export const BAKED_VOLUME_PREFIX = 'egress-baked-';
/** The baking domain and its scratch volumes: never a proxy, never a base. */
export const BAKING_PREFIX = 'egress-baking-';

/**
 * Bumped when the baking procedure itself changes (the cleanup, the seed's shape): every
 * recipe hash changes with it, so bases baked the old way are no longer used.
 */
export const BAKE_FORMAT = 2;

/** The guest agent every baked image gets (addresses from inside the guest, agent exec). */
export const AGENT_PACKAGES: readonly string[] = ['qemu-guest-agent'];

/** A Debian package name (policy 5.6.1): what may go into a recipe. */
const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;

/** What is baked: the packages installed into the image (sorted, unique). */
export interface BakeRecipe {
  packages: string[];
}

/** A bake recipe from the proxy software's packages: those plus the guest agent, sorted and unique. */
export function bakeRecipe(proxyPackages: readonly string[]): BakeRecipe {
  const packages = [...new Set([...AGENT_PACKAGES, ...proxyPackages])].sort();
  for (const p of packages)
    if (!PACKAGE_NAME.test(p)) throw new Error(`package name ${JSON.stringify(p)} is not a Debian package name`);
  return { packages };
}

/** The recipe every image is baked with: every proxy kind's software (tinyproxy, Dante) and the guest agent. */
export function proxyRecipe(): BakeRecipe {
  return bakeRecipe(proxyPackages());
}

/** 12 hex characters of the SHA-256 of the recipe and {@link BAKE_FORMAT}: equal hashes mean the same baked content. */
export function recipeHash(recipe: BakeRecipe): string {
  const canonical = JSON.stringify({ format: BAKE_FORMAT, packages: [...new Set(recipe.packages)].sort() });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}

const SHA256 = /^[0-9a-f]{64}$/;

/** The baked base volume of an image on a host: always qcow2 (libvirt's copy flattens the overlay the bake ran on). */
export function bakedVolumeName(sha256: string, recipe: BakeRecipe): string {
  if (!SHA256.test(sha256))
    throw new Error(`image digest must be 64 lowercase hex characters, got ${JSON.stringify(sha256)}`);
  return `${BAKED_VOLUME_PREFIX}${sha256}-${recipeHash(recipe)}.qcow2`;
}

/** The digest and recipe hash a baked volume's name carries, or undefined for another name. */
export function parseBakedVolumeName(name: string): { sha256: string; recipeHash: string } | undefined {
  const m = /^egress-baked-([0-9a-f]{64})-([0-9a-f]{12})\.qcow2$/.exec(name);
  return m ? { sha256: m[1]!, recipeHash: m[2]! } : undefined;
}

/** The baking run's own objects (domain, overlay, seed), named for the baked volume they make. */
export function bakingNames(sha256: string, recipe: BakeRecipe): { domain: string; overlay: string; seed: string } {
  const stem = `${BAKING_PREFIX}${sha256.slice(0, 16)}-${recipeHash(recipe)}`;
  return { domain: stem, overlay: `${stem}-root.qcow2`, seed: `${stem}-seed.iso` };
}

/**
 * The line the baking guest writes to its serial console when it is done: `EGRESS-BAKE-OK
 * <hash>` after the packages are installed and the image cleaned, `EGRESS-BAKE-FAILED
 * <hash> <why>` otherwise. The script assembles the words at run time, so the text of the
 * seed itself (which cloud-init may echo) never contains the marker.
 */
export const BAKE_MARKER = /EGRESS-BAKE-(OK|FAILED) ([0-9a-f]{12})(?: ([^\r\n]*))?/;

/**
 * A drop-in the bake leaves for tinyproxy (enabled by its package), so that on a baked
 * image's first boot the proxy answers the moment cloud-init's `write_files` has written
 * its configuration, early in cloud-init's network stage.
 *
 * Why it takes `DefaultDependencies=no`: on Debian, cloud-init.service is ordered
 * `Before=sysinit.target` and every ordinary service `After=sysinit.target`, so without it
 * tinyproxy cannot start before the whole network stage is over (growpart, resizefs,
 * users: 5-6 s of Python under TCG, measured with `systemd-analyze critical-chain
 * tinyproxy.service` in a baked guest). Out of the default dependencies it keeps what it
 * needs: the local file systems, the journal's socket (it logs to syslog) and the
 * package's own `After=network.target`; shutdown ordering is restated.
 *
 * Before starting it waits (ExecStartPre, at most 120 s) until tinyproxy.conf ends with the
 * line only Egress Desk's configuration ends with (tinyproxy-conf.ts): Debian's default
 * file is still there when it is first started; tested on the last line, not on the file's
 * presence, because write_files writes in place and a half-written file has no last line
 * yet. On a reboot the file is already complete and the wait is one `tail`. The baked
 * user-data then only starts tinyproxy if it is not running (cloud-config.ts), so a client
 * that saw it ready is not cut off by a restart.
 *
 * The finishing script writes it after the packages are installed, not `write_files`:
 * while baking, the package's own start (Debian's default file) must not wait. `$$` is
 * systemd's escape for a literal `$`.
 */
const TINYPROXY = PROXY_SOFTWARE.http;
export const TINYPROXY_DROP_IN = {
  path: `/etc/systemd/system/${TINYPROXY.unit}.service.d/10-egress-start-on-config.conf`,
  content: [
    '# Egress Desk: start as soon as cloud-init has written tinyproxy.conf (write_files), at most 120 s later.',
    '[Unit]',
    'DefaultDependencies=no',
    'After=local-fs.target systemd-journald.socket',
    'Conflicts=shutdown.target',
    'Before=shutdown.target',
    '[Service]',
    `ExecStartPre=/bin/sh -c 'n=0; until tail -n 1 ${TINYPROXY.configPath} 2>/dev/null | grep -qxF "${TINYPROXY_CONF_END}"; do n=$$((n+1)); [ $$n -ge 600 ] && break; sleep 0.2; done'`,
    'TimeoutStartSec=180',
    '',
  ].join('\n'),
} as const;

/** Where the baking guest's finishing script is written (it removes itself before the image is sealed). */
const FINISH_SCRIPT = '/usr/local/sbin/egress-bake-finish';

/**
 * The baking guest's user-data: installs the recipe's packages (cloud-init's `packages`,
 * which refreshes the lists first; vendor-data's `apt` sources, a site mirror, apply), then
 * hands over to a transient systemd unit that waits for cloud-init to be done (so nothing
 * writes its state after the clean), checks the packages are there, cleans what must not
 * travel into every proxy (cloud-init's state and logs, the machine id, DHCP leases,
 * apt's cache), says so on the console and powers off. When a package is missing it says
 * which and powers off all the same: the host sees the marker and discards the run.
 */
export function buildBakeUserData(recipe: BakeRecipe): string {
  const hash = recipeHash(recipe);
  const packages = recipe.packages.join(' ');
  const say = (word: string, rest = '') => `printf 'EGRESS-%s-%s %s %s\\n' BAKE ${word} ${hash} "${rest}" > /dev/ttyS0`;
  const finish = [
    '#!/bin/sh',
    'cloud-init status --wait >/dev/null 2>&1',
    `missing=$(for p in ${packages}; do dpkg-query -W -f '\${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || printf '%s ' "$p"; done)`,
    `if [ -n "$missing" ]; then ${say('FAILED', 'not installed: $missing(see /var/log/cloud-init-output.log)')}; rm -f "$0"; poweroff; exit 0; fi`,
    'apt-get clean',
    // Dante's package enables danted, which fails at every boot until a socks5 seed writes
    // its configuration (that seed enables and restarts it itself): seconds of a vCPU under
    // TCG on every http proxy's first boot, and a failed unit in `systemctl --failed`.
    `systemctl disable ${PROXY_SOFTWARE.socks5.unit}.service >/dev/null 2>&1 || true`,
    `mkdir -p ${posix.dirname(TINYPROXY_DROP_IN.path)}`,
    `cat > ${TINYPROXY_DROP_IN.path} <<'EGRESS_EOF'\n${TINYPROXY_DROP_IN.content}EGRESS_EOF`,
    'rm -f /var/lib/dhcp/*.leases',
    'cloud-init clean --logs',
    'truncate -s 0 /etc/machine-id',
    'rm -f /var/lib/dbus/machine-id "$0"',
    'sync',
    say('OK'),
    'poweroff',
    '',
  ].join('\n');
  const doc = {
    packages: recipe.packages,
    package_update: true,
    write_files: [{ path: FINISH_SCRIPT, owner: 'root:root', permissions: '0755', content: finish }],
    runcmd: [['systemd-run', '--no-block', '--collect', '--unit', 'egress-bake-finish', '/bin/sh', FINISH_SCRIPT]],
  };
  return `#cloud-config\n${stringify(doc, { lineWidth: 0 })}`;
}
