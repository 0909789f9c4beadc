/**
 * Numeric flags and enums of the libvirt API that callers pass in or read back
 * (libvirt-domain.h, libvirt-storage.h, libvirt-network.h, libvirt-host.h).
 */

/** `virDrvFeature` values for CONNECT_SUPPORTS_FEATURE. */
export const Feature = {
  /** The daemon understands the keepalive program and starts pinging idle clients. */
  PROGRAM_KEEPALIVE: 10,
  /** Events via CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY (316–318). */
  REMOTE_EVENT_CALLBACK: 14,
  REMOTE_CLOSE_CALLBACK: 15,
} as const;

/** `remote_auth_type`. */
export const AuthType = { NONE: 0, SASL: 1, POLKIT: 2 } as const;

/** CONNECT_OPEN flags. */
export const ConnectFlags = { RO: 1, NO_ALIASES: 2 } as const;

/** `virConnectListAllDomainsFlags`. */
export const ListDomains = {
  ACTIVE: 1,
  INACTIVE: 2,
  PERSISTENT: 4,
  TRANSIENT: 8,
  RUNNING: 16,
  PAUSED: 32,
  SHUTOFF: 64,
  OTHER: 128,
} as const;

/** `virConnectListAllStoragePoolsFlags` and `virConnectListAllNetworksFlags` (same low bits). */
export const ListPoolsOrNetworks = {
  INACTIVE: 1,
  ACTIVE: 2,
  PERSISTENT: 4,
  TRANSIENT: 8,
  AUTOSTART: 16,
  NO_AUTOSTART: 32,
} as const;

/** `virDomainXMLFlags`. */
export const DomainXml = { SECURE: 1, INACTIVE: 2, UPDATE_CPU: 4, MIGRATABLE: 8 } as const;

/** `virDomainModificationImpact`: which definition a change applies to (CURRENT = live if running, else config). */
export const DomainAffect = { CURRENT: 0, LIVE: 1, CONFIG: 2 } as const;

/** `virDomainMetadataType`. */
export const MetadataType = { DESCRIPTION: 0, TITLE: 1, ELEMENT: 2 } as const;

/** `virDomainUndefineFlagsValues`. */
export const DomainUndefine = {
  MANAGED_SAVE: 1,
  SNAPSHOTS_METADATA: 2,
  NVRAM: 4,
  KEEP_NVRAM: 8,
  CHECKPOINTS_METADATA: 16,
  TPM: 32,
} as const;

/** `virDomainDefineFlags`. */
export const DomainDefine = { VALIDATE: 1 } as const;

/** `virDomainDestroyFlagsValues`. */
export const DomainDestroy = { DEFAULT: 0, GRACEFUL: 1 } as const;

/** `virDomainInterfaceAddressesSource`. */
export const InterfaceAddressesSource = { LEASE: 0, AGENT: 1, ARP: 2 } as const;

/** `virIPAddrType`. */
export const IpAddrType = { IPV4: 0, IPV6: 1 } as const;

/** `virDomainState`. */
export const DomainState = {
  NOSTATE: 0,
  RUNNING: 1,
  BLOCKED: 2,
  PAUSED: 3,
  SHUTDOWN: 4,
  SHUTOFF: 5,
  CRASHED: 6,
  PMSUSPENDED: 7,
} as const;

/** `virStorageVolCreateFlags`. */
export const StorageVolCreate = { PREALLOC_METADATA: 1, REFLINK: 2, VALIDATE: 4 } as const;

/** `virStoragePoolState`. */
export const StoragePoolState = { INACTIVE: 0, BUILDING: 1, RUNNING: 2, DEGRADED: 3, INACCESSIBLE: 4 } as const;

/** `virDomainConsoleFlags`. */
export const ConsoleFlags = { FORCE: 1, SAFE: 2 } as const;

/** `virDomainEventID`. */
export const DomainEventId = { LIFECYCLE: 0, METADATA_CHANGE: 23 } as const;

/** `virDomainStatsTypes` for CONNECT_GET_ALL_DOMAIN_STATS. */
export const DomainStatsType = {
  STATE: 1,
  CPU_TOTAL: 2,
  BALLOON: 4,
  VCPU: 8,
  INTERFACE: 16,
  BLOCK: 32,
  PERF: 64,
  IOTHREAD: 128,
  MEMORY: 256,
  DIRTYRATE: 512,
} as const;

/**
 * `virConnectGetAllDomainStatsFlags` (the ones we use): ACTIVE limits the call to running
 * domains; NOWAIT skips a group of a domain that a job holds instead of waiting for it, so
 * one busy domain does not hold up the whole host's figures.
 */
export const GetAllDomainStatsFlags = { ACTIVE: 1, NOWAIT: 1 << 29 } as const;
