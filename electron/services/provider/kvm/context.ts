/**
 * What the provider's parts share: the injected collaborators, and the per-host queues
 * and base-image uploads that must be one per provider instance.
 */
import type { ResolvedKVMConfig, ResolvedKVMHost } from '../../../../shared/config.js';
import type { ProxyCredentials, ProxyKind } from '../../../../shared/proxy.js';
import type { CredentialsStore } from '../../credentials/credentials-store.js';
import { BakeRegistry } from './images/bake-registry.js';
import { BaseImages } from './images/base-image.js';
import type { HostShell, ImageTransfer } from './images/host-fetch-plan.js';
import { HostQueues } from './images/host-queue.js';
import type { GuestAddress, LibvirtApi, DomainStateName } from './libvirt-api.js';
import type { InstanceMetadata } from './xml/metadata.js';
import type { PortProbe } from './readiness.js';
import type { Labels, LaunchedBy } from '../../../../shared/fleet-meta.js';
import { workstationIdentity } from './identity.js';

/** The local image cache as the provider uses it (electron/services/images ImageCache fits). */
export interface LocalImageSource {
  ensure(
    image: { url: string; sha256: string; format: 'qcow2' | 'raw' },
    options: { signal?: AbortSignal; onProgress?: (p: { bytes: number; total?: number }) => void },
  ): Promise<{ path: string; size: number; sha256: string }>;
}

/** The provider's collaborators. */
export interface ProviderDeps {
  config: ResolvedKVMConfig;
  /** libvirt on one host (connecting on first use). */
  apiFor: (host: string) => Promise<LibvirtApi>;
  images: LocalImageSource;
  credentials: CredentialsStore;
  /** Does the proxy port answer? Injected: tests probe from inside their network namespace. */
  probe: PortProbe;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** Generated BasicAuth credentials (default: from the OS's CSPRNG). */
  generateCredentials?: () => ProxyCredentials;
  /** Time between readiness rounds (default 1 s). */
  readinessIntervalMs?: number;
  /** A shell on an SSH host, for fetch-on-host; undefined for this machine (or a host without one). */
  hostShell?: (host: ResolvedKVMHost) => HostShell | undefined;
  /** The app's per-host choice of how base images reach the host (default auto); asked at each launch. */
  imageTransfer?: (host: string) => Promise<ImageTransfer>;
  /**
   * Told after a base image was moved to a host (fetched there or uploaded), with why it was
   * not fetched when `auto` fell back: the app keeps it to show beside the host's choice. A
   * rejection is ignored (the launch goes on).
   */
  onImageTransfer?: (host: string, transfer: ImageTransferDone) => Promise<void>;
  /** Who is launching, recorded in the metadata (default: this OS user on this workstation, identity.ts). */
  identity?: LaunchedBy;
}

/** What {@link ProviderDeps.onImageTransfer} is told. */
export interface ImageTransferDone {
  mode: 'fetch' | 'upload';
  reason?: string;
  volume: string;
}

export interface ProviderContext extends ProviderDeps {
  now: () => number;
  identity: LaunchedBy;
  queues: HostQueues;
  baseImages: BaseImages;
  /** Bakes under way and the last failures (bake.ts). */
  bakes: BakeRegistry;
  /** Instance ids whose launch is under way in this process (reconcile leaves them alone). */
  launching: Set<string>;
  /** Per proxy name: launches of one name run one after the other. */
  names: HostQueues;
  /** Per host entry, the identity of the hypervisor it reaches, as last learnt (hypervisors.ts). */
  identities: Map<string, string>;
}

export function createContext(deps: ProviderDeps): ProviderContext {
  const queues = new HostQueues();
  return {
    ...deps,
    now: deps.now ?? Date.now,
    identity: deps.identity ?? workstationIdentity(),
    queues,
    baseImages: new BaseImages(queues, deps.now ?? Date.now),
    bakes: new BakeRegistry(),
    launching: new Set(),
    names: new HostQueues(),
    identities: new Map(),
  };
}

/** A proxy as the front ends see it. */
export interface ProxyRecord {
  name: string;
  /** The libvirt domain name (instance id). */
  id: string;
  host: string;
  state: DomainStateName;
  port: number;
  /** What it speaks; absent = http (its metadata carries no kind). */
  kind?: ProxyKind;
  machineType: string;
  image: { name: string; sha256: string };
  createdAt: string;
  owner: InstanceMetadata['owner'];
  specHash: string;
  /** Addresses known without asking the guest (leases); inspect asks every source. */
  addresses: GuestAddress[];
  /** The host its metadata names, when that is not an entry on this hypervisor (renamed, removed). */
  unknownHost?: string;
  /** Why a running proxy's addresses are unknown (its network is not active…), when the listing can tell. */
  addressNote?: string;
  labels?: Labels;
  /** Who launched it; absent for proxies launched by 0.1.0. */
  launchedBy?: LaunchedBy;
  /** ISO 8601: when it is to be deleted; absent = never. */
  expiresAt?: string;
  /** Set on a replacement whose predecessor (this domain name) still serves: not yet the proxy. */
  replacing?: string;
}

export function toRecord(
  host: string,
  domain: { name: string; state: DomainStateName },
  meta: InstanceMetadata,
  addresses: GuestAddress[] = [],
  unknownHost?: string,
): ProxyRecord {
  const record: ProxyRecord = {
    name: meta.name,
    id: domain.name,
    host,
    state: domain.state,
    port: meta.port,
    machineType: meta.machineType,
    image: meta.image,
    createdAt: meta.createdAt,
    owner: meta.owner,
    specHash: meta.specHash,
    addresses,
  };
  if (unknownHost !== undefined) record.unknownHost = unknownHost;
  if (meta.kind !== undefined) record.kind = meta.kind;
  if (meta.labels) record.labels = meta.labels;
  if (meta.launchedBy) record.launchedBy = meta.launchedBy;
  if (meta.expiresAt !== undefined) record.expiresAt = meta.expiresAt;
  if (meta.replaces) record.replacing = meta.replaces.domain;
  return record;
}
