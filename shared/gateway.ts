/**
 * The gateway's clients (issue 40): who may use the one address of the fleet. A client has
 * its own name and password, never a member's, and may be held to source addresses. They
 * are kept on the workstation like proxy credentials (`gateway-clients.json`, 0600), and a
 * client's name is the first part of every user name it sends (shared/gateway-user.ts).
 */
import { z } from 'zod';
import { gatewayClientNameProblem } from './gateway-user.js';
import { isCidr } from './net.js';

/** Client allow-lists hold at most this many entries. */
export const GATEWAY_ALLOW_MAX = 64;

/** A password a client sends in Basic auth: 12-128 characters, none that a proxy URL would have to escape. */
const PASSWORD = /^[A-Za-z0-9._~-]{12,128}$/;

export const GatewayClientNameSchema = z.string().superRefine((name, ctx) => {
  const problem = gatewayClientNameProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const GatewayClientSchema = z.strictObject({
  name: GatewayClientNameSchema,
  password: z.string().regex(PASSWORD, 'must be 12-128 characters of letters, digits, ".", "_", "~" and "-"'),
  /** Source addresses or CIDR blocks the client may connect from; absent = any that reaches the listener. */
  allow: z
    .array(z.string().refine(isCidr, 'must be an IP address or CIDR block'))
    .min(1)
    .max(GATEWAY_ALLOW_MAX)
    .optional(),
});
export type GatewayClient = z.infer<typeof GatewayClientSchema>;

/** A client as lists show it: everything but the password. */
export type GatewayClientView = Omit<GatewayClient, 'password'>;

/** What became of a gateway request. */
export const GATEWAY_OUTCOMES = ['ok', 'refused', 'no-member', 'failed'] as const;

/**
 * One gateway request, as the access log keeps it (a JSON line of `logs/gateway-access.log`):
 * no secret, no path for CONNECT (there is none), no query string unless the person asked.
 * Read back through this schema (`gateway log`, the Requests table, the counters).
 */
export const GatewayAccessEntrySchema = z.object({
  /** ISO 8601, when the request came. */
  at: z.string(),
  /** The client's name (absent when the request was refused before it was known). */
  client: z.string().optional(),
  source: z.string(),
  /** CONNECT, SOCKS5, or the plain request's method. */
  method: z.string(),
  /** host:port for CONNECT and SOCKS5; the URL without its query string (unless asked) for plain HTTP. */
  target: z.string(),
  /** The member it left through (its proxy's name and host). */
  member: z.string().optional(),
  host: z.string().optional(),
  /** Members tried (more than 1: failover). */
  tries: z.number().int().nonnegative(),
  /** Bytes from the client towards the target, and back. */
  bytesOut: z.number().nonnegative(),
  bytesIn: z.number().nonnegative(),
  ms: z.number().nonnegative(),
  outcome: z.enum(GATEWAY_OUTCOMES),
  /** The status the client got, for plain HTTP and refusals. */
  status: z.number().int().optional(),
  /** Why it was refused or failed; for one that succeeded, what happened first (members that failed it, its session's move). */
  reason: z.string().optional(),
});
export type GatewayAccessEntry = z.infer<typeof GatewayAccessEntrySchema>;

/** The gateway's settings in the app (settings.json `gateway`): whether it runs, and where. */
export const GatewaySettingsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  port: z.int().min(0).max(65535).default(3130),
  /** Loopback unless the person says otherwise (and then only with clients). */
  bind: z.union([z.ipv4(), z.ipv6(), z.literal('localhost')]).default('127.0.0.1'),
  /** The SOCKS5 listener's port; null: none. */
  socksPort: z.int().min(0).max(65535).nullable().default(3131),
  /** Keep plain HTTP URLs' query strings in the access log. */
  logQuery: z.boolean().default(false),
});
export type GatewaySettings = z.infer<typeof GatewaySettingsSchema>;

/** One member as the Gateway view shows it. */
export const GatewayMemberViewSchema = z.object({
  key: z.string(),
  name: z.string(),
  host: z.string(),
  usable: z.boolean(),
  /** Why it is not used (stopped, failing, no credentials here…), when it is not. */
  reason: z.string().optional(),
  requests: z.number().int().nonnegative(),
  /** Its part of the requests relayed since the gateway started, 0-1. */
  share: z.number().min(0).max(1),
  bytesIn: z.number().nonnegative(),
  bytesOut: z.number().nonnegative(),
  /** Connections open through it now. */
  open: z.number().int().nonnegative(),
});
export type GatewayMemberView = z.infer<typeof GatewayMemberViewSchema>;

/** `gateway:status` and the `gateway:update` event: the Gateway view's figures. */
export const GatewayStatusSchema = z.object({
  settings: GatewaySettingsSchema,
  running: z.boolean(),
  /** Where it listens, once it does. */
  address: z.string().optional(),
  port: z.number().int().optional(),
  socksPort: z.number().int().optional(),
  /** Why it is not running though enabled (a port in use, no client for a bind outside loopback). */
  error: z.string().optional(),
  clients: z.array(z.string()),
  members: z.array(GatewayMemberViewSchema),
  /** Since it started, and per second over the last few seconds. */
  totals: z.object({
    requests: z.number().int().nonnegative(),
    bytesIn: z.number().nonnegative(),
    bytesOut: z.number().nonnegative(),
    requestsPerSecond: z.number().nonnegative(),
    bytesPerSecond: z.number().nonnegative(),
  }),
  /** The access log file. */
  logFile: z.string(),
});
export type GatewayStatus = z.infer<typeof GatewayStatusSchema>;
