/**
 * The NoCloud seed's documents: user-data (tinyproxy configured and started, hostname
 * set), meta-data (instance-id, local-hostname) and vendor-data (from the config). YAML
 * is produced by the yaml package from data, never by pasting user input into text.
 */
import { stringify } from 'yaml';
import { DNS_LABEL } from '../../../../shared/config.js';
import { buildTinyproxyConf, type TinyproxySpec } from './tinyproxy-conf.js';

/** cloud-init reads seeds of any size, but ours travel in an ISO and in previews: keep them small. */
export const MAX_USER_DATA_BYTES = 64 * 1024;
export const MAX_VENDOR_DATA_BYTES = 256 * 1024;

export interface UserDataSpec {
  hostname: string;
  proxy: TinyproxySpec;
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
 * user-data: writes tinyproxy.conf and (re)starts tinyproxy. The package is installed only
 * when missing, so an image that ships tinyproxy boots offline; `--force-confold` keeps
 * our file when the package is installed after it was written.
 */
export function buildUserData(spec: UserDataSpec): string {
  checkHostname(spec.hostname);
  const doc = {
    hostname: spec.hostname,
    manage_etc_hosts: true,
    write_files: [
      {
        path: '/etc/tinyproxy/tinyproxy.conf',
        owner: 'root:root',
        permissions: '0644',
        content: buildTinyproxyConf(spec.proxy),
      },
    ],
    runcmd: [
      [
        'sh',
        '-c',
        'command -v tinyproxy >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y -o Dpkg::Options::=--force-confold tinyproxy; }',
      ],
      ['systemctl', 'enable', 'tinyproxy'],
      ['systemctl', 'restart', 'tinyproxy'],
    ],
  };
  return checkSize('user-data', `#cloud-config\n${stringify(doc, { lineWidth: 0 })}`, MAX_USER_DATA_BYTES);
}

/** meta-data: the instance id (a new one makes cloud-init run again) and the hostname. */
export function buildMetaData(instanceId: string, hostname: string): string {
  checkHostname(hostname);
  if (!DNS_LABEL.test(instanceId)) throw new Error(`instance id ${JSON.stringify(instanceId)} must be a lowercase DNS label`);
  return stringify({ 'instance-id': instanceId, 'local-hostname': hostname });
}

/** vendor-data: the config's, as it is (it may be any format cloud-init reads). */
export function buildVendorData(vendorData: string): string {
  return checkSize('vendor-data', vendorData, MAX_VENDOR_DATA_BYTES);
}
