/**
 * The errors the client produces. Callers branch on the class and on `LibvirtError.code`
 * (libvirt's virErrorNumber), never on message text; the helpers at the bottom cover the
 * common questions ("does it exist?", "is it a permissions problem?").
 */
import type { DomainRef, NetworkRef } from './types.js';

/** `virErrorNumber` values this project meets (libvirt's virterror.h). */
export const ErrorCode = {
  OK: 0,
  INTERNAL_ERROR: 1,
  NO_SUPPORT: 3,
  INVALID_CONN: 6,
  INVALID_DOMAIN: 7,
  INVALID_ARG: 8,
  OPERATION_FAILED: 9,
  XML_ERROR: 27,
  DOM_EXIST: 28,
  OPERATION_DENIED: 29,
  NETWORK_EXIST: 37,
  SYSTEM_ERROR: 38,
  RPC: 39,
  NO_DOMAIN: 42,
  NO_NETWORK: 43,
  AUTH_FAILED: 45,
  INVALID_STORAGE_POOL: 46,
  INVALID_STORAGE_VOL: 47,
  NO_STORAGE_POOL: 49,
  NO_STORAGE_VOL: 50,
  NO_NODE_DEVICE: 53,
  OPERATION_INVALID: 55,
  NO_INTERFACE: 57,
  NO_NWFILTER: 62,
  NO_SECRET: 66,
  CONFIG_UNSUPPORTED: 67,
  OPERATION_TIMEOUT: 68,
  NO_DOMAIN_SNAPSHOT: 72,
  ARGUMENT_UNSUPPORTED: 74,
  OPERATION_ABORTED: 78,
  AUTH_CANCELLED: 79,
  NO_DOMAIN_METADATA: 80,
  OPERATION_UNSUPPORTED: 84,
  AGENT_UNRESPONSIVE: 86,
  RESOURCE_BUSY: 87,
  ACCESS_DENIED: 88,
  STORAGE_VOL_EXIST: 90,
  XML_INVALID_SCHEMA: 92,
  AUTH_UNAVAILABLE: 94,
  NETWORK_PORT_EXIST: 106,
  NO_NETWORK_PORT: 107,
  NO_HOSTNAME: 108,
} as const;

/** `virErrorDomain` values (where in libvirt an error was raised). */
export const ErrorDomain = {
  NONE: 0,
  RPC: 7,
  QEMU: 10,
  REMOTE: 13,
  TEST: 14,
  STORAGE: 18,
  NETWORK: 19,
  DOMAIN: 20,
  STREAMS: 38,
} as const;

/** `virErrorLevel`. */
export const ErrorLevel = { NONE: 0, WARNING: 1, ERROR: 2 } as const;

/** The fields of libvirt's `remote_error`. */
export interface RemoteErrorFields {
  code: number;
  domain: number;
  message: string | null;
  level: number;
  dom: DomainRef | null;
  str1: string | null;
  str2: string | null;
  str3: string | null;
  int1: number;
  int2: number;
  net: NetworkRef | null;
}

/** An error reported by libvirtd (a REPLY or STREAM packet with status ERROR). */
export class LibvirtError extends Error {
  override readonly name = 'LibvirtError';
  /** `virErrorNumber`, see {@link ErrorCode}. */
  readonly code: number;
  /** `virErrorDomain`, see {@link ErrorDomain}. */
  readonly domain: number;
  readonly level: number;
  readonly str1: string | null;
  readonly str2: string | null;
  readonly str3: string | null;
  readonly int1: number;
  readonly int2: number;
  /** The domain the error is about, when libvirt says. */
  readonly dom: DomainRef | null;
  readonly net: NetworkRef | null;
  /** The procedure that failed, e.g. `DOMAIN_GET_METADATA`, when known. */
  readonly procedure: string | undefined;

  constructor(fields: RemoteErrorFields, procedure?: string) {
    super(fields.message ?? `libvirt error code ${fields.code}`);
    this.code = fields.code;
    this.domain = fields.domain;
    this.level = fields.level;
    this.str1 = fields.str1;
    this.str2 = fields.str2;
    this.str3 = fields.str3;
    this.int1 = fields.int1;
    this.int2 = fields.int2;
    this.dom = fields.dom;
    this.net = fields.net;
    this.procedure = procedure;
  }

  /** An error raised on this side in libvirt's vocabulary (e.g. an unsupported auth method). */
  static local(code: number, message: string, procedure?: string): LibvirtError {
    return new LibvirtError(
      {
        code,
        domain: ErrorDomain.REMOTE,
        message,
        level: ErrorLevel.ERROR,
        dom: null,
        str1: null,
        str2: null,
        str3: null,
        int1: 0,
        int2: 0,
        net: null,
      },
      procedure,
    );
  }
}

/**
 * The peer broke the protocol: a bad length word, a reply nobody asked for, an
 * undecodable header. The connection cannot be trusted afterwards and is closed.
 */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

/**
 * The connection is gone (closed by us, by the daemon, by the transport, or failed by a
 * protocol error or a dead keepalive). Every call and stream pending at that moment
 * rejects with it; `cause` says why.
 */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
}

function codeOf(err: unknown): number | undefined {
  return err instanceof LibvirtError ? err.code : undefined;
}

const NOT_FOUND = new Set<number>([
  ErrorCode.NO_DOMAIN,
  ErrorCode.NO_NETWORK,
  ErrorCode.NO_STORAGE_POOL,
  ErrorCode.NO_STORAGE_VOL,
  ErrorCode.NO_DOMAIN_METADATA,
  ErrorCode.NO_NODE_DEVICE,
  ErrorCode.NO_INTERFACE,
  ErrorCode.NO_NWFILTER,
  ErrorCode.NO_SECRET,
  ErrorCode.NO_DOMAIN_SNAPSHOT,
  ErrorCode.NO_NETWORK_PORT,
]);

/** True when libvirt says the object (domain, network, pool, volume, metadata element…) does not exist. */
export function isNotFound(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && NOT_FOUND.has(code);
}

const EXISTS = new Set<number>([
  ErrorCode.DOM_EXIST,
  ErrorCode.NETWORK_EXIST,
  ErrorCode.STORAGE_VOL_EXIST,
  ErrorCode.NETWORK_PORT_EXIST,
]);

/**
 * True when the object already exists. Defining a domain or pool whose name is taken by
 * another UUID fails with OPERATION_FAILED and "already exists", so that counts too.
 */
export function isAlreadyExists(err: unknown): boolean {
  const code = codeOf(err);
  if (code === undefined) return false;
  if (EXISTS.has(code)) return true;
  return code === ErrorCode.OPERATION_FAILED && /already exists/i.test((err as LibvirtError).message);
}

const AUTH = new Set<number>([
  ErrorCode.AUTH_FAILED,
  ErrorCode.AUTH_CANCELLED,
  ErrorCode.AUTH_UNAVAILABLE,
  ErrorCode.ACCESS_DENIED,
  ErrorCode.OPERATION_DENIED,
]);

/** True for authentication and authorisation failures (polkit refused, ACL denied, SASL needed). */
export function isAuthError(err: unknown): boolean {
  const code = codeOf(err);
  if (code === undefined) return false;
  if (AUTH.has(code)) return true;
  // An unauthenticated call is refused as a generic RPC error.
  return code === ErrorCode.RPC && /authentication required/i.test((err as LibvirtError).message);
}

/** True when the error means the connection is gone (so reconnecting may help). */
export function isConnectionClosed(err: unknown): err is ConnectionClosedError {
  return err instanceof ConnectionClosedError;
}
