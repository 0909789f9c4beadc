/**
 * The REMOTE program's procedures this project uses, as one declarative table: number,
 * argument layout, reply layout (from remote_protocol.x). Everything typed about calls is
 * derived from it: `client.call('DOMAIN_GET_XML_DESC', { dom, flags })` checks the
 * arguments and types the reply, and {@link createApi} builds `api.domainGetXmlDesc(…)`
 * by iterating the table. Adding a procedure is adding a row.
 *
 * Replies with a single field are declared as that field's codec (an XDR struct of one
 * member is that member on the wire), so `CONNECT_GET_URI` returns a string, not `{ uri }`.
 */
import {
  array,
  char,
  type Codec,
  type Infer,
  int,
  map,
  optional,
  struct,
  uchar,
  uhyper,
  uint,
  ushort,
  xvoid,
} from './codec.js';
import {
  Limits,
  dhcpLease,
  domain,
  domainInterface,
  domainStatsRecord,
  network,
  nodeInfo,
  nodeStat,
  ostring,
  rstring,
  storagePool,
  storageVol,
  uuid,
} from './types.js';

/**
 * How a procedure is used. `call`: request, reply. `upload`/`download`/`duplex`: the reply
 * opens a data stream (client→server, server→client, both); use the stream helpers.
 * `event`: a MESSAGE the server sends unasked; `args` is its payload layout.
 */
export type ProcedureKind = 'call' | 'upload' | 'download' | 'duplex' | 'event';

/** One row of the table. */
export interface ProcedureSpec<A, R, K extends ProcedureKind = ProcedureKind> {
  readonly proc: number;
  readonly kind: K;
  readonly args: Codec<A>;
  readonly reply: Codec<R>;
}

function call<A, R>(proc: number, args: Codec<A>, reply: Codec<R>): ProcedureSpec<A, R, 'call'> {
  return { proc, kind: 'call', args, reply };
}
function stream<A, K extends 'upload' | 'download' | 'duplex'>(
  proc: number,
  kind: K,
  args: Codec<A>,
): ProcedureSpec<A, undefined, K> {
  return { proc, kind, args, reply: xvoid };
}
function event<M>(proc: number, message: Codec<M>): ProcedureSpec<M, undefined, 'event'> {
  return { proc, kind: 'event', args: message, reply: xvoid };
}

// Argument shapes shared by many rows.
const domArgs = struct('dom_args', { dom: domain });
const domFlags = struct('dom_flags_args', { dom: domain, flags: uint });
const nameArgs = struct('name_args', { name: rstring });
const xmlFlags = struct('xml_flags_args', { xml: rstring, flags: uint });
const listArgs = struct('list_all_args', { needResults: int, flags: uint });
const volFlags = struct('vol_flags_args', { vol: storageVol, flags: uint });
const volArgs = struct('vol_args', { vol: storageVol });
const poolArgs = struct('pool_args', { pool: storagePool });
const volTransfer = struct('storage_vol_transfer_args', {
  vol: storageVol,
  offset: uhyper,
  length: uhyper,
  flags: uint,
});
/** `int` results that are really yes/no (CONNECT_SUPPORTS_FEATURE). */
const intBool = map(
  int,
  'int',
  (v) => v !== 0,
  (b: boolean) => (b ? 1 : 0),
);

/** The procedure table. Numbers match libvirt ≥ 3.x (checked against remote_protocol.x). */
export const procedures = {
  CONNECT_OPEN: call(1, struct('remote_connect_open_args', { name: ostring, flags: uint }), xvoid),
  CONNECT_CLOSE: call(2, xvoid, xvoid),
  CONNECT_GET_TYPE: call(3, xvoid, rstring),
  CONNECT_GET_VERSION: call(4, xvoid, uhyper),
  NODE_GET_INFO: call(6, xvoid, nodeInfo),
  CONNECT_GET_CAPABILITIES: call(7, xvoid, rstring),
  DOMAIN_CREATE: call(9, domArgs, xvoid),
  DOMAIN_DEFINE_XML: call(11, struct('remote_domain_define_xml_args', { xml: rstring }), domain),
  DOMAIN_DESTROY: call(12, domArgs, xvoid),
  DOMAIN_GET_XML_DESC: call(14, domFlags, rstring),
  DOMAIN_GET_INFO: call(
    16,
    domArgs,
    struct('remote_domain_get_info_ret', {
      state: uchar,
      maxMem: uhyper,
      memory: uhyper,
      nrVirtCpu: ushort,
      cpuTime: uhyper,
    }),
  ),
  DOMAIN_LOOKUP_BY_NAME: call(23, nameArgs, domain),
  DOMAIN_LOOKUP_BY_UUID: call(24, struct('remote_domain_lookup_by_uuid_args', { uuid }), domain),
  DOMAIN_SHUTDOWN: call(33, domArgs, xvoid),
  NETWORK_LOOKUP_BY_NAME: call(46, nameArgs, network),
  CONNECT_GET_HOSTNAME: call(59, xvoid, rstring),
  CONNECT_SUPPORTS_FEATURE: call(60, struct('remote_connect_supports_feature_args', { feature: int }), intBool),
  AUTH_LIST: call(66, xvoid, array(int, Limits.AUTH_TYPE_LIST)),
  AUTH_POLKIT: call(70, xvoid, int),
  // A transient pool (a staging directory): it exists while active, and destroying it removes its definition.
  STORAGE_POOL_CREATE_XML: call(76, xmlFlags, storagePool),
  STORAGE_POOL_DESTROY: call(80, poolArgs, xvoid),
  STORAGE_POOL_REFRESH: call(83, struct('remote_storage_pool_refresh_args', { pool: storagePool, flags: uint }), xvoid),
  STORAGE_POOL_LOOKUP_BY_NAME: call(84, nameArgs, storagePool),
  STORAGE_POOL_GET_INFO: call(
    87,
    poolArgs,
    struct('remote_storage_pool_get_info_ret', {
      state: uchar,
      capacity: uhyper,
      allocation: uhyper,
      available: uhyper,
    }),
  ),
  STORAGE_VOL_CREATE_XML: call(
    93,
    struct('remote_storage_vol_create_xml_args', { pool: storagePool, xml: rstring, flags: uint }),
    storageVol,
  ),
  STORAGE_VOL_DELETE: call(94, volFlags, xvoid),
  STORAGE_VOL_LOOKUP_BY_NAME: call(
    95,
    struct('remote_storage_vol_lookup_by_name_args', { pool: storagePool, name: rstring }),
    storageVol,
  ),
  // `char type` (virStorageVolType: 0 file, 1 block, 2 dir…) is 4 bytes on the wire like every char.
  STORAGE_VOL_GET_INFO: call(
    98,
    volArgs,
    struct('remote_storage_vol_get_info_ret', { type: char, capacity: uhyper, allocation: uhyper }),
  ),
  STORAGE_VOL_GET_XML_DESC: call(99, volFlags, rstring),
  STORAGE_VOL_GET_PATH: call(100, volArgs, rstring),
  // libvirt copies `clonevol` (of any active pool) into a new volume of `pool`, itself: no bytes cross the connection.
  STORAGE_VOL_CREATE_XML_FROM: call(
    125,
    struct('remote_storage_vol_create_xml_from_args', {
      pool: storagePool,
      xml: rstring,
      clonevol: storageVol,
      flags: uint,
    }),
    storageVol,
  ),
  NODE_GET_FREE_MEMORY: call(102, xvoid, uhyper),
  CONNECT_GET_URI: call(110, xvoid, rstring),
  CONNECT_GET_LIB_VERSION: call(157, xvoid, uhyper),
  DOMAIN_CREATE_WITH_FLAGS: call(196, domFlags, domain),
  DOMAIN_OPEN_CONSOLE: stream(
    201,
    'duplex',
    struct('remote_domain_open_console_args', { dom: domain, devName: ostring, flags: uint }),
  ),
  STORAGE_VOL_UPLOAD: stream(208, 'upload', volTransfer),
  STORAGE_VOL_DOWNLOAD: stream(209, 'download', volTransfer),
  DOMAIN_GET_STATE: call(212, domFlags, struct('remote_domain_get_state_ret', { state: int, reason: int })),
  // cpuNum −1: all CPUs together; cellNum −1: the whole host. nparams 0 asks how many counters there are.
  NODE_GET_CPU_STATS: call(
    227,
    struct('remote_node_get_cpu_stats_args', { cpuNum: int, nparams: int, flags: uint }),
    struct('remote_node_get_cpu_stats_ret', { params: array(nodeStat, Limits.NODE_CPU_STATS), nparams: int }),
  ),
  NODE_GET_MEMORY_STATS: call(
    228,
    struct('remote_node_get_memory_stats_args', { nparams: int, cellNum: int, flags: uint }),
    struct('remote_node_get_memory_stats_ret', { params: array(nodeStat, Limits.NODE_MEMORY_STATS), nparams: int }),
  ),
  DOMAIN_UNDEFINE_FLAGS: call(231, domFlags, xvoid),
  DOMAIN_DESTROY_FLAGS: call(234, domFlags, xvoid),
  DOMAIN_SHUTDOWN_FLAGS: call(258, domFlags, xvoid),
  DOMAIN_SET_METADATA: call(
    264,
    struct('remote_domain_set_metadata_args', {
      dom: domain,
      type: int,
      metadata: ostring,
      key: ostring,
      uri: ostring,
      flags: uint,
    }),
    xvoid,
  ),
  DOMAIN_GET_METADATA: call(
    265,
    struct('remote_domain_get_metadata_args', { dom: domain, type: int, uri: ostring, flags: uint }),
    rstring,
  ),
  CONNECT_LIST_ALL_DOMAINS: call(
    273,
    listArgs,
    struct('remote_connect_list_all_domains_ret', { domains: array(domain, Limits.DOMAIN_LIST), ret: uint }),
  ),
  CONNECT_LIST_ALL_STORAGE_POOLS: call(
    281,
    listArgs,
    struct('remote_connect_list_all_storage_pools_ret', {
      pools: array(storagePool, Limits.STORAGE_POOL_LIST),
      ret: uint,
    }),
  ),
  STORAGE_POOL_LIST_ALL_VOLUMES: call(
    282,
    struct('remote_storage_pool_list_all_volumes_args', { pool: storagePool, needResults: int, flags: uint }),
    struct('remote_storage_pool_list_all_volumes_ret', { vols: array(storageVol, Limits.STORAGE_VOL_LIST), ret: uint }),
  ),
  CONNECT_LIST_ALL_NETWORKS: call(
    283,
    listArgs,
    struct('remote_connect_list_all_networks_ret', { nets: array(network, Limits.NETWORK_LIST), ret: uint }),
  ),
  CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY: call(
    316,
    struct('remote_connect_domain_event_callback_register_any_args', { eventID: int, dom: optional(domain) }),
    int,
  ),
  CONNECT_DOMAIN_EVENT_CALLBACK_DEREGISTER_ANY: call(
    317,
    struct('remote_connect_domain_event_callback_deregister_any_args', { callbackID: int }),
    xvoid,
  ),
  DOMAIN_EVENT_CALLBACK_LIFECYCLE: event(
    318,
    struct('remote_domain_event_callback_lifecycle_msg', { callbackID: int, dom: domain, event: int, detail: int }),
  ),
  NETWORK_GET_DHCP_LEASES: call(
    341,
    struct('remote_network_get_dhcp_leases_args', { net: network, mac: ostring, needResults: int, flags: uint }),
    struct('remote_network_get_dhcp_leases_ret', { leases: array(dhcpLease, Limits.NETWORK_DHCP_LEASES), ret: uint }),
  ),
  CONNECT_GET_DOMAIN_CAPABILITIES: call(
    342,
    struct('remote_connect_get_domain_capabilities_args', {
      emulatorbin: ostring,
      arch: ostring,
      machine: ostring,
      virttype: ostring,
      flags: uint,
    }),
    rstring,
  ),
  CONNECT_GET_ALL_DOMAIN_STATS: call(
    344,
    struct('remote_connect_get_all_domain_stats_args', {
      doms: array(domain, Limits.DOMAIN_LIST),
      stats: uint,
      flags: uint,
    }),
    array(domainStatsRecord, Limits.DOMAIN_LIST),
  ),
  DOMAIN_DEFINE_XML_FLAGS: call(350, xmlFlags, domain),
  DOMAIN_INTERFACE_ADDRESSES: call(
    353,
    struct('remote_domain_interface_addresses_args', { dom: domain, source: uint, flags: uint }),
    array(domainInterface, Limits.DOMAIN_INTERFACE),
  ),
  DOMAIN_EVENT_CALLBACK_METADATA_CHANGE: event(
    379,
    struct('remote_domain_event_callback_metadata_change_msg', {
      callbackID: int,
      dom: domain,
      type: int,
      nsuri: ostring,
    }),
  ),
} as const;

type Table = typeof procedures;
/** Every procedure name in the table. */
export type ProcedureName = keyof Table;
/** Names of plain request/reply procedures. */
export type CallName = { [K in ProcedureName]: Table[K]['kind'] extends 'call' ? K : never }[ProcedureName];
/** Names of server-sent event messages. */
export type EventName = { [K in ProcedureName]: Table[K]['kind'] extends 'event' ? K : never }[ProcedureName];
/** Arguments of a procedure (for an event: its message). */
export type ArgsOf<K extends ProcedureName> = Infer<Table[K]['args']>;
/** Reply of a procedure. */
export type ReplyOf<K extends ProcedureName> = Infer<Table[K]['reply']>;
/** The parameter list of `call(name, …)`: nothing for a procedure without arguments. */
export type CallArgs<K extends ProcedureName> = [ArgsOf<K>] extends [undefined] ? [] : [args: ArgsOf<K>];

/** The untyped view of a row, for code that iterates the table. */
export type AnySpec = ProcedureSpec<unknown, unknown>;

/** The row for `name`. */
export function spec(name: ProcedureName): AnySpec {
  return procedures[name] as AnySpec;
}

const byNumber = new Map<number, ProcedureName>(
  Object.entries(procedures).map(([name, s]) => [s.proc, name as ProcedureName]),
);

/** The table name of a procedure number, if it is in the table. */
export function procedureName(proc: number): ProcedureName | undefined {
  return byNumber.get(proc);
}

type PascalWords<S extends string> = S extends `${infer H}_${infer T}`
  ? `${Capitalize<Lowercase<H>>}${PascalWords<T>}`
  : Capitalize<Lowercase<S>>;
/** `DOMAIN_GET_XML_DESC` → `domainGetXmlDesc`. */
export type CamelName<S extends string> = Uncapitalize<PascalWords<S>>;

/** Converts a table name to its method name at run time (same rule as {@link CamelName}). */
export function camelName(name: string): string {
  return name
    .toLowerCase()
    .split('_')
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');
}

/** Something that can make a typed call; {@link LibvirtClient} is one. */
export interface Caller {
  call<K extends CallName>(name: K, ...args: CallArgs<K>): Promise<ReplyOf<K>>;
}

/** One method per call procedure, named in camelCase: `api.connectGetUri()`, `api.domainLookupByName({ name })`. */
export type LibvirtApi = { [K in CallName as CamelName<K>]: (...args: CallArgs<K>) => Promise<ReplyOf<K>> };

/** Builds the {@link LibvirtApi} object by iterating the table. */
export function createApi(caller: Caller): LibvirtApi {
  const api: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [name, row] of Object.entries(procedures)) {
    if (row.kind !== 'call') continue;
    const untyped = caller.call.bind(caller) as (name: string, ...args: unknown[]) => Promise<unknown>;
    api[camelName(name)] = (...args: unknown[]) => untyped(name, ...args);
  }
  return api as unknown as LibvirtApi;
}
