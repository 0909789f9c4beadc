/**
 * Everything a launch sends to libvirt, computed by pure functions before anything is
 * created: the preview (`egress-desk proxies render`) and the launch use the same call.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ResolvedKVMConfig, ResolvedKVMHost } from '../../../../shared/config.js';
import { DEFAULT_ALLOW } from '../../../../shared/net.js';
import {
  type ProxyCredentials,
  type ProxyKind,
  type ProxySpec,
  SOCKS5_DEFAULT_PORT,
} from '../../../../shared/proxy.js';
import type { Labels, LaunchedBy } from '../../../../shared/fleet-meta.js';
import { buildMetaData, buildUserData, buildVendorData } from './guest/cloud-config.js';
import { type CpuMode, buildDomainXml } from './xml/domain-xml.js';
import { type InstanceMetadata, METADATA_FORMAT_VERSION, InstanceMetadataSchema } from './xml/metadata.js';
import { baseVolumeName, checkProxyName, instanceId, instanceMac, instanceUuid, instanceVolumes } from './names.js';
import { buildNoCloudSeed } from './guest/seed-iso.js';
import { GIB, buildOverlayVolumeXml, buildSeedVolumeXml } from './xml/volume-xml.js';

/** A spec names something the config does not have, or nothing where the config has no default. */
export class SpecError extends Error {
  override readonly name = 'SpecError';
}

/** A spec with every choice made: what the builders take. */
export interface ResolvedSpec {
  name: string;
  host: ResolvedKVMHost;
  machineTypeName: string;
  machineType: { vcpus: number; memoryMiB: number; diskGiB: number };
  imageName: string;
  image: { url: string; sha256: string; format: 'qcow2' | 'raw' };
  port: number;
  /** What it speaks; absent = http. */
  kind?: ProxyKind;
  allow: string[];
  /** Absent when authentication is turned off. */
  credentials?: ProxyCredentials;
  vendorData: string;
  /** Fleet facts for the metadata, outside the spec hash (they can change without a relaunch). */
  labels?: Labels;
  expiresAt?: string;
}

/** The machine type asked for, or the config's default; SpecError when there is none by that name. */
export function resolveMachineType(
  config: ResolvedKVMConfig,
  asked: string | undefined,
): { name: string; machineType: ResolvedKVMConfig['machineTypes'][string] } {
  const name = asked ?? config.defaults.machineType;
  if (!name) throw new SpecError('no machine type given and the config names no default (kvm.defaults.machineType)');
  const machineType = config.machineTypes[name];
  if (!machineType)
    throw new SpecError(
      `no machine type named ${JSON.stringify(name)} (known: ${Object.keys(config.machineTypes).join(', ')})`,
    );
  return { name, machineType };
}

/**
 * Fills a spec from the config: machine type and image from `defaults`, port from
 * `proxy.port` (http) or {@link SOCKS5_DEFAULT_PORT}, allow list from {@link DEFAULT_ALLOW}, generated credentials. The host
 * is chosen by the caller (placement needs live host data).
 */
export function resolveSpec(
  spec: ProxySpec,
  config: ResolvedKVMConfig,
  host: ResolvedKVMHost,
  generate: () => ProxyCredentials = generateCredentials,
): ResolvedSpec {
  checkProxyName(spec.name);
  const { name: machineTypeName, machineType } = resolveMachineType(config, spec.machineType);
  const imageName = spec.image ?? config.defaults.image;
  const known = Object.keys(config.images);
  if (!imageName) {
    throw new SpecError(
      known.length
        ? 'no image given and the config names no default (kvm.defaults.image)'
        : 'no image given and the config has none: add one under kvm.images',
    );
  }
  const image = config.images[imageName];
  if (!image) throw new SpecError(`no image named ${JSON.stringify(imageName)} (known: ${known.join(', ') || 'none'})`);
  const resolved: ResolvedSpec = {
    name: spec.name,
    host,
    machineTypeName,
    machineType,
    imageName,
    image,
    port: spec.port ?? (spec.kind === 'socks5' ? SOCKS5_DEFAULT_PORT : config.proxy.port),
    allow: spec.allow ?? [...DEFAULT_ALLOW],
    vendorData: config.vendorData,
  };
  if (spec.kind === 'socks5') resolved.kind = 'socks5';
  if (spec.labels && Object.keys(spec.labels).length) resolved.labels = spec.labels;
  if (spec.expiresAt !== undefined) resolved.expiresAt = spec.expiresAt;
  if (spec.auth !== false) resolved.credentials = spec.credentials ?? generate();
  return resolved;
}

/** BasicAuth credentials from the OS's CSPRNG: a readable user, a 24-character password. */
export function generateCredentials(): ProxyCredentials {
  return { username: 'egress', password: randomBytes(18).toString('base64url') };
}

/**
 * The spec's digest, recorded in the metadata: equal digests mean "the same proxy".
 * Credentials are left out (a secret must not be derivable from metadata); whether
 * authentication is on is in. The kind is in only when it is not http, so an http proxy's
 * digest is what it was before kinds existed (an identical relaunch stays identical).
 */
export function specHash(spec: ResolvedSpec): string {
  const canonical = JSON.stringify({
    name: spec.name,
    host: spec.host.name,
    machineType: { name: spec.machineTypeName, ...spec.machineType },
    image: { name: spec.imageName, sha256: spec.image.sha256, format: spec.image.format },
    port: spec.port,
    ...(spec.kind === 'socks5' ? { kind: spec.kind } : {}),
    allow: [...spec.allow].sort(),
    auth: spec.credentials !== undefined,
    vendorData: createHash('sha256').update(spec.vendorData).digest('hex'),
  });
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

export interface RenderOptions {
  /** kvm or qemu (TCG): the host's choice, made by the caller from its capabilities. */
  domainType: 'kvm' | 'qemu';
  cpuMode?: CpuMode;
  /** The base volume's path on the host (looked up at launch; a predicted one for previews). */
  basePath: string;
  /** The base volume's name and format when it is not the image's plain base (a baked one, always qcow2). */
  baseVolume?: string;
  baseFormat?: 'qcow2' | 'raw';
  /** The base is baked (bake.ts): the user-data installs no packages. */
  baked?: boolean;
  createdAt: Date;
  owner?: InstanceMetadata['owner'];
  /** Who launches it (no secret: an OS user name and a host name). */
  launchedBy?: LaunchedBy;
  /** The domain name, when not the name's first instance id (a replacement: names.ts replacementId). */
  id?: string;
  /** The domain this one replaces, recorded until that one is deleted (metadata `replaces`). */
  replaces?: { domain: string; host: string };
}

/** Everything one proxy is made of. */
export interface RenderedProxy {
  id: string;
  volumes: { root: string; seed: string; base: string };
  metadata: InstanceMetadata;
  domainXml: string;
  overlayVolumeXml: string;
  seedVolumeXml: string;
  seedIso: Buffer;
  userData: string;
  metaData: string;
  vendorData: string;
}

/** The list is DEFAULT_ALLOW (in any order): the metadata then records none, as before 0.2. */
function isDefaultAllow(allow: readonly string[]): boolean {
  const sorted = [...allow].sort();
  const defaults = [...DEFAULT_ALLOW].sort();
  return sorted.length === defaults.length && sorted.every((a, i) => a === defaults[i]);
}

export function renderProxy(spec: ResolvedSpec, options: RenderOptions): RenderedProxy {
  const id = options.id ?? instanceId(spec.name);
  const volumes = {
    ...instanceVolumes(id),
    base: options.baseVolume ?? baseVolumeName(spec.image.sha256, spec.image.format),
  };
  const metadata = InstanceMetadataSchema.parse({
    formatVersion: METADATA_FORMAT_VERSION,
    name: spec.name,
    owner: options.owner ?? 'egress-desk',
    host: spec.host.name,
    machineType: spec.machineTypeName,
    image: { name: spec.imageName, sha256: spec.image.sha256 },
    port: spec.port,
    createdAt: options.createdAt.toISOString(),
    specHash: specHash(spec),
    ...(spec.labels ? { labels: spec.labels } : {}),
    ...(options.launchedBy ? { launchedBy: options.launchedBy } : {}),
    ...(spec.expiresAt !== undefined ? { expiresAt: spec.expiresAt } : {}),
    ...(spec.kind === 'socks5' ? { kind: spec.kind } : {}),
    ...(isDefaultAllow(spec.allow) ? {} : { allow: spec.allow }),
    ...(options.replaces ? { replaces: options.replaces } : {}),
  });
  const proxy = { port: spec.port, allow: spec.allow, ...(spec.credentials ? { credentials: spec.credentials } : {}) };
  const userData = buildUserData({
    hostname: spec.name,
    ...(spec.kind ? { kind: spec.kind } : {}),
    proxy,
    ...(options.baked ? { baked: true } : {}),
  });
  const metaData = buildMetaData(id, spec.name);
  const vendorData = buildVendorData(spec.vendorData);
  const seedIso = buildNoCloudSeed({ userData, metaData, vendorData });
  const domainXml = buildDomainXml({
    name: id,
    uuid: instanceUuid(id),
    title: `egress proxy ${spec.name}`,
    vcpus: spec.machineType.vcpus,
    memoryMiB: spec.machineType.memoryMiB,
    domainType: options.domainType,
    ...(options.cpuMode ? { cpuMode: options.cpuMode } : {}),
    pool: spec.host.pool,
    rootVolume: volumes.root,
    seedVolume: volumes.seed,
    nic: spec.host.bridge ? { bridge: spec.host.bridge } : { network: spec.host.network ?? 'default' },
    mac: instanceMac(id, metadata.createdAt),
    metadata,
  });
  return {
    id,
    volumes,
    metadata,
    domainXml,
    overlayVolumeXml: buildOverlayVolumeXml({
      name: volumes.root,
      capacityBytes: spec.machineType.diskGiB * GIB,
      backingPath: options.basePath,
      backingFormat: options.baseFormat ?? spec.image.format,
    }),
    seedVolumeXml: buildSeedVolumeXml(volumes.seed, seedIso.length),
    seedIso,
    userData,
    metaData,
    vendorData,
  };
}
