/**
 * Names of everything a proxy owns on a host, derived from the proxy's name alone so that
 * the fleet can be rebuilt from libvirt and leftovers can be recognised (reconcile).
 *
 *   proxy `web-1` → instance id `ep-web-1-k3x9q2` (the libvirt domain name; a replacement
 *                   takes the name's second id, `alternateInstanceId`, and back)
 *                 → volumes `ep-web-1-k3x9q2-root.qcow2`, `ep-web-1-k3x9q2-seed.iso`
 *   image digest  → base volume `egress-base-<sha256>.qcow2`
 *   image digest + bake recipe → baked base volume `egress-baked-<sha256>-<recipe>.qcow2` (bake-recipe.ts)
 */
import { createHash } from 'node:crypto';
import { DNS_LABEL } from '../../../../shared/config.js';
import { BAKED_VOLUME_PREFIX } from './guest/bake-recipe.js';

/** Every name this provider creates on a host starts with one of these. */
export const INSTANCE_PREFIX = 'ep-';
export const BASE_VOLUME_PREFIX = 'egress-base-';

/** A host's shared cache of an image: a plain base volume or a baked one (both pruned alike, base-prune.ts). */
export function isBaseVolume(volume: string): boolean {
  return volume.startsWith(BASE_VOLUME_PREFIX) || volume.startsWith(BAKED_VOLUME_PREFIX);
}
const SUFFIX_LENGTH = 6;
/** RFC 4648 base32, lowercased: DNS-safe and unambiguous. */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A proxy name that is not a lowercase DNS label. */
export class InvalidNameError extends Error {
  override readonly name = 'InvalidNameError';
}

/** Checks a proxy name: a lowercase DNS label of at most 63 characters. */
export function checkProxyName(name: string): string {
  if (!DNS_LABEL.test(name)) {
    throw new InvalidNameError(
      `proxy name ${JSON.stringify(name.length > 70 ? `${name.slice(0, 67)}...` : name)} must be a lowercase DNS label: a-z, 0-9 and "-", 1-63 characters, not starting or ending with "-"`,
    );
  }
  return name;
}

function base32(bytes: Uint8Array, length: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= length) break;
  }
  return out;
}

/** The short stable suffix of a proxy name: 6 base32 characters of its SHA-256 (30 bits). */
export function nameSuffix(name: string): string {
  return base32(createHash('sha256').update(`egress-desk:instance:${name}`).digest(), SUFFIX_LENGTH);
}

/**
 * The instance id of a proxy: `ep-<name>-<suffix>`, at most 63 characters (a DNS label,
 * and a valid libvirt domain name). Long names are shortened; the suffix hashes the whole
 * name, so two long names that share a prefix still get different ids.
 */
export function instanceId(name: string): string {
  checkProxyName(name);
  return `${instanceStem(name)}-${nameSuffix(name)}`;
}

function instanceStem(name: string): string {
  const room = 63 - INSTANCE_PREFIX.length - 1 - SUFFIX_LENGTH;
  return `${INSTANCE_PREFIX}${name.slice(0, room).replace(/-+$/, '')}`;
}

/**
 * The second instance id of a proxy name, which a replacement takes while the proxy it
 * replaces still runs under the first (libvirt cannot rename a running domain, and two
 * domains cannot share a name). A proxy replaced again goes back to the first: a name has
 * exactly these two ids, so a lookup by name asks for two domains, never lists a host.
 */
export function alternateInstanceId(name: string): string {
  checkProxyName(name);
  const suffix = base32(
    createHash('sha256').update(`egress-desk:instance:${name}:replacement`).digest(),
    SUFFIX_LENGTH,
  );
  return `${instanceStem(name)}-${suffix}`;
}

/** Both instance ids a proxy name may have, the first one first. */
export function instanceIds(name: string): [string, string] {
  return [instanceId(name), alternateInstanceId(name)];
}

/** The id a replacement of the domain `current` of proxy `name` takes: the other of its two. */
export function replacementId(name: string, current: string): string {
  const [first, second] = instanceIds(name);
  return current === first ? second : first;
}

/** The volumes of one proxy. */
export interface InstanceVolumes {
  root: string;
  seed: string;
}

export function instanceVolumes(id: string): InstanceVolumes {
  return { root: `${id}-root.qcow2`, seed: `${id}-seed.iso` };
}

/** True when a volume name is one this provider creates for an instance (reconcile uses it). */
export function isInstanceVolume(volume: string): boolean {
  return /^ep-[a-z0-9-]+-[a-z2-7]{6}-(root\.qcow2|seed\.iso)$/.test(volume);
}

/** The instance id a volume belongs to, if it is an instance volume. */
export function instanceOfVolume(volume: string): string | undefined {
  return isInstanceVolume(volume) ? volume.replace(/-(root\.qcow2|seed\.iso)$/, '') : undefined;
}

/** The base volume of an image, named by its digest: present means already uploaded. */
export function baseVolumeName(sha256: string, format: 'qcow2' | 'raw'): string {
  if (!/^[0-9a-f]{64}$/.test(sha256))
    throw new Error(`image digest must be 64 lowercase hex characters, got ${JSON.stringify(sha256)}`);
  return `${BASE_VOLUME_PREFIX}${sha256}.${format === 'qcow2' ? 'qcow2' : 'img'}`;
}

/**
 * A locally administered unicast MAC in QEMU's range (52:54:00) for one launch of an
 * instance: hashed from the instance id and the launch's `createdAt`, so a proxy deleted
 * and launched again under the same name gets a new MAC, and the DHCP leases its earlier
 * instances left (an hour each by default) never match the new one (docs/provider.md).
 * Listing reads the MAC from the domain XML, never from this function.
 */
export function instanceMac(id: string, createdAt: string): string {
  const h = createHash('sha256').update(`egress-desk:mac:${id}:${createdAt}`).digest();
  return ['52', '54', '00', ...[h[0]!, h[1]!, h[2]!].map((b) => b.toString(16).padStart(2, '0'))].join(':');
}

/** A UUID stable for an instance id (RFC 9562 version 8: custom, hash-based). */
export function instanceUuid(id: string): string {
  const h = createHash('sha256').update(`egress-desk:uuid:${id}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
