/**
 * Codecs for the handles and records of remote_protocol.x. Handles (domain, network,
 * pool, volume) are what the daemon returns from lookups and expects back verbatim.
 */
import {
  array,
  char,
  type Codec,
  double,
  fixedArray,
  fixedOpaque,
  hyper,
  int,
  type Infer,
  map,
  optional,
  string,
  struct,
  uhyper,
  uint,
  union,
} from './codec.js';
import { REMOTE_STRING_MAX } from './packet.js';
import { XdrError } from './xdr.js';

/** `remote_nonnull_string`. */
export const rstring = string(REMOTE_STRING_MAX);
/** `remote_string`: optional, absent is `null`. */
export const ostring = optional(rstring);
/** `remote_uuid`: 16 raw bytes. */
export const uuid = fixedOpaque(16);

/** List limits from remote_protocol.x, enforced when decoding. */
export const Limits = {
  AUTH_TYPE_LIST: 20,
  DOMAIN_LIST: 16_384,
  NETWORK_LIST: 16_384,
  STORAGE_POOL_LIST: 4_096,
  STORAGE_VOL_LIST: 16_384,
  NETWORK_DHCP_LEASES: 65_536,
  DOMAIN_INTERFACE: 2_048,
  DOMAIN_IP_ADDR: 2_048,
  CONNECT_GET_ALL_DOMAIN_STATS: 4_096,
  NODE_CPU_STATS: 16,
  NODE_MEMORY_STATS: 16,
} as const;

/** `remote_nonnull_domain`. `id` is −1 while the domain is not running. */
export const domain = struct('remote_nonnull_domain', { name: rstring, uuid, id: int });
export type DomainRef = Infer<typeof domain>;

/** `remote_nonnull_network`. */
export const network = struct('remote_nonnull_network', { name: rstring, uuid });
export type NetworkRef = Infer<typeof network>;

/** `remote_nonnull_storage_pool`. */
export const storagePool = struct('remote_nonnull_storage_pool', { name: rstring, uuid });
export type StoragePoolRef = Infer<typeof storagePool>;

/** `remote_nonnull_storage_vol`. */
export const storageVol = struct('remote_nonnull_storage_vol', { pool: rstring, name: rstring, key: rstring });
export type StorageVolRef = Infer<typeof storageVol>;

/** `remote_error`: the payload of every REPLY/ERROR and server STREAM/ERROR. */
export const remoteError = struct('remote_error', {
  code: int,
  domain: int,
  message: ostring,
  level: int,
  dom: optional(domain),
  str1: ostring,
  str2: ostring,
  str3: ostring,
  int1: int,
  int2: int,
  net: optional(network),
});

/** `virTypedParameterType`. */
export const TypedParamType = { INT: 1, UINT: 2, LLONG: 3, ULLONG: 4, DOUBLE: 5, BOOLEAN: 6, STRING: 7 } as const;

const typedParamValue = union('remote_typed_param_value', {
  [TypedParamType.INT]: int,
  [TypedParamType.UINT]: uint,
  [TypedParamType.LLONG]: hyper,
  [TypedParamType.ULLONG]: uhyper,
  [TypedParamType.DOUBLE]: double,
  // BOOLEAN is an int on the wire, not an XDR bool: any non-zero value is true.
  [TypedParamType.BOOLEAN]: map(
    int,
    'int',
    (v) => v !== 0,
    (b: boolean) => (b ? 1 : 0),
  ),
  [TypedParamType.STRING]: rstring,
});
export type TypedParamValue = Infer<typeof typedParamValue>;

/** `remote_typed_param`: a named, typed value (domain stats, tunables). */
export const typedParam = struct('remote_typed_param', { field: rstring, value: typedParamValue });
export type TypedParam = Infer<typeof typedParam>;

/** Flattens typed params to `field → value` (stats records are easier to read this way). */
export function typedParamsToRecord(params: readonly TypedParam[]): Record<string, number | bigint | boolean | string> {
  const out: Record<string, number | bigint | boolean | string> = {};
  for (const p of params) out[p.field] = p.value.value;
  return out;
}

/**
 * `char name[n]`: n chars of 4 bytes each, NUL-terminated C text. Decoded to a string
 * (the NUL and what follows dropped); encoded NUL-padded.
 */
export function charString(n: number): Codec<string> {
  return map(
    fixedArray(char, n),
    `char[${n}]`,
    (codes) => {
      const end = codes.indexOf(0);
      return Buffer.from((end < 0 ? codes : codes.slice(0, end)).map((c) => c & 0xff)).toString('latin1');
    },
    (s: string) => {
      const bytes = Buffer.from(s, 'latin1');
      if (bytes.length > n) throw new XdrError(`text of ${bytes.length} bytes does not fit char[${n}]`);
      const codes = new Array<number>(n).fill(0);
      bytes.forEach((b, i) => (codes[i] = b > 127 ? b - 256 : b));
      return codes;
    },
  );
}

/** `remote_node_get_info_ret`. Memory in KiB. */
export const nodeInfo = struct('remote_node_get_info_ret', {
  model: charString(32),
  memory: uhyper,
  cpus: int,
  mhz: int,
  nodes: int,
  sockets: int,
  cores: int,
  threads: int,
});
export type NodeInfo = Infer<typeof nodeInfo>;

/**
 * `remote_node_get_cpu_stats` / `remote_node_get_memory_stats`: one named counter (CPU
 * time in ns: `kernel`, `user`, `idle`, `iowait`; memory in KiB: `total`, `free`, `buffers`,
 * `cached`), as both NODE_GET_*_STATS replies carry them.
 */
export const nodeStat = struct('remote_node_get_stats', { field: rstring, value: uhyper });
export type NodeStat = Infer<typeof nodeStat>;

/** `remote_network_dhcp_lease`. */
export const dhcpLease = struct('remote_network_dhcp_lease', {
  iface: rstring,
  expirytime: hyper,
  type: int,
  mac: ostring,
  iaid: ostring,
  ipaddr: rstring,
  prefix: uint,
  hostname: ostring,
  clientid: ostring,
});
export type DhcpLease = Infer<typeof dhcpLease>;

/** `remote_domain_ip_addr`; type 0 IPv4, 1 IPv6. */
export const domainIpAddr = struct('remote_domain_ip_addr', { type: int, addr: rstring, prefix: uint });
/** `remote_domain_interface`. */
export const domainInterface = struct('remote_domain_interface', {
  name: rstring,
  hwaddr: ostring,
  addrs: array(domainIpAddr, Limits.DOMAIN_IP_ADDR),
});
export type DomainInterface = Infer<typeof domainInterface>;

/** `remote_domain_stats_record`: one domain's stats from CONNECT_GET_ALL_DOMAIN_STATS. */
export const domainStatsRecord = struct('remote_domain_stats_record', {
  dom: domain,
  params: array(typedParam, Limits.CONNECT_GET_ALL_DOMAIN_STATS),
});
export type DomainStatsRecord = Infer<typeof domainStatsRecord>;

/** Formats a 16-byte UUID as the usual 8-4-4-4-12 hex text. */
export function formatUuid(bytes: Uint8Array): string {
  const h = Buffer.from(bytes).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Parses UUID text (with or without dashes) into 16 bytes. */
export function parseUuid(text: string): Buffer {
  const hex = text.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new TypeError(`not a UUID: ${text}`);
  return Buffer.from(hex, 'hex');
}
