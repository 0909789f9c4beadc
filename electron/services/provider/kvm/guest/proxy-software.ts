/**
 * The software each proxy kind runs in the guest: the Debian packages that provide it,
 * its systemd unit and where its configuration lives. One table, used by the user-data
 * (install when the image lacks it, then restart the unit), by the test image's recipe
 * (test/env/guest-image.sh lists the same packages; a unit test compares them) and by
 * anything that bakes an image with the proxy software preinstalled.
 */
import type { ProxyKind } from '../../../../../shared/proxy.js';

export interface ProxySoftware {
  /** Debian packages (bookworm) that provide the server; installed with recommends. */
  packages: readonly string[];
  /** The binary whose presence means "installed" (the image may carry it). */
  binary: string;
  /** The systemd unit to enable and restart once the configuration is written. */
  unit: string;
  /** The configuration file cloud-init writes before the package (dpkg keeps it: --force-confold). */
  configPath: string;
}

/** Per kind: tinyproxy for http, Dante (`danted`) for socks5. */
export const PROXY_SOFTWARE: Readonly<Record<ProxyKind, ProxySoftware>> = {
  http: {
    packages: ['tinyproxy'],
    binary: 'tinyproxy',
    unit: 'tinyproxy',
    configPath: '/etc/tinyproxy/tinyproxy.conf',
  },
  socks5: { packages: ['dante-server'], binary: 'danted', unit: 'danted', configPath: '/etc/danted.conf' },
};

/**
 * The packages a guest needs for these kinds, in table order, without repeats: what an
 * image bake installs (every kind, so one baked image serves both) or a launch of one kind.
 */
export function proxyPackages(kinds: readonly ProxyKind[] = Object.keys(PROXY_SOFTWARE) as ProxyKind[]): string[] {
  return [...new Set(kinds.flatMap((k) => PROXY_SOFTWARE[k].packages))];
}
