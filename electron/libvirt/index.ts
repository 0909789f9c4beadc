/**
 * The pure-TypeScript libvirt RPC client. Layers, bottom up (pg-protocol style):
 * xdr.ts / codec.ts (encoding) → packet.ts / framing.ts (packets) → types.ts /
 * procedures.ts (the typed procedure table) → connection.ts / client.ts (serials,
 * pending calls, handshake, keepalive) → streams.ts, events.ts, helpers.ts.
 */
export { LibvirtClient, type ClientOptions, type ConnectOptions, type OpenOptions } from './client.js';
export type { KeepaliveOptions } from './connection.js';
export {
  ConnectionClosedError,
  ErrorCode,
  ErrorDomain,
  ErrorLevel,
  LibvirtError,
  ProtocolError,
  isAlreadyExists,
  isAuthError,
  isConnectionClosed,
  isNotFound,
  type RemoteErrorFields,
} from './errors.js';
export { XdrError, XdrReader, XdrWriter } from './xdr.js';
export * as codec from './codec.js';
export { PacketParser } from './framing.js';
export {
  MAX_PACKET,
  MessageStatus,
  MessageType,
  Program,
  STREAM_CHUNK_MAX,
  type Packet,
  type PacketHeader,
} from './packet.js';
export {
  createApi,
  procedures,
  type ArgsOf,
  type CallArgs,
  type CallName,
  type Caller,
  type LibvirtApi,
  type ProcedureName,
  type ReplyOf,
} from './procedures.js';
export {
  formatUuid,
  parseUuid,
  typedParamsToRecord,
  TypedParamType,
  type DhcpLease,
  type DomainInterface,
  type DomainRef,
  type DomainStatsRecord,
  type NetworkRef,
  type NodeInfo,
  type StoragePoolRef,
  type StorageVolRef,
  type TypedParam,
  type TypedParamValue,
} from './types.js';
export * from './constants.js';
export {
  LifecycleEventType,
  type LifecycleEvent,
  type LifecycleEventName,
  type LifecycleListener,
  type MetadataChangeEvent,
  type MetadataChangeListener,
  type SubscribeOptions,
} from './events.js';
export type { TransferOptions } from './streams.js';
export * from './helpers.js';
