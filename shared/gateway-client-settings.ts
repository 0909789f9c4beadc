/**
 * Client settings for the gateway (issue 40): the same formats as a proxy's
 * (shared/client-settings.ts), for the gateway's address with a client's user name, which
 * carries what the client asks for (a session, labels, a host: shared/gateway-user.ts).
 * Pure, and the one place that builds them: `egress-desk gateway client-settings` and the
 * app's `gateway:clientSettings` both call {@link buildGatewayClientSettings}, and the
 * Gateway view checks its fields with {@link checkGatewaySelection} before it asks.
 */
import { z } from 'zod';
import {
  type ClientFormat,
  ClientFormatSchema,
  type ClientSettingsFile,
  buildClientSettings,
} from './client-settings.js';
import { LABELS_MAX, type Labels } from './fleet-meta.js';
import { type GatewayStatus, GatewayClientNameSchema } from './gateway.js';
import { formatGatewayUser, parseGatewayUser } from './gateway-user.js';
import { parseLabels } from './launch-form.js';

/** The client made when none exists and a first one is needed (`egress-desk gateway`, the Gateway view). */
export const FIRST_GATEWAY_CLIENT = 'desk';

/** A value as a client may send it; the grammar (gateway-user.ts) says what it may hold, with its own reasons. */
const PartValueSchema = z.string().min(1).max(256);

/** What a client asks the gateway for, beyond its name: each part of the user name. */
export const GatewaySelectionSchema = z.strictObject({
  /** Sticky: the same member for this ID. */
  session: PartValueSchema.optional(),
  /** Only members with all of these labels. */
  labels: z
    .record(PartValueSchema, PartValueSchema)
    .refine((l) => Object.keys(l).length <= LABELS_MAX, `at most ${LABELS_MAX} labels`)
    .optional(),
  /** Only members on this host. */
  host: PartValueSchema.optional(),
});
export type GatewaySelection = z.infer<typeof GatewaySelectionSchema>;

/** `gateway:clientSettings`'s input. */
export const GatewayClientSettingsInputSchema = GatewaySelectionSchema.extend({
  /** A gateway client (default: the first; one is made when none exists). */
  client: GatewayClientNameSchema.optional(),
  format: ClientFormatSchema,
  /** The SOCKS5 listener instead of the HTTP one. */
  socks: z.boolean().optional(),
  /** Include the client's password (the gateway's own, never a member's): the answer is then a secret. */
  withCredentials: z.boolean().optional(),
});
export type GatewayClientSettingsInput = z.infer<typeof GatewayClientSettingsInputSchema>;

/** A user name the gateway would refuse, or a listener it does not have: the message says which and why. */
export class GatewayClientSettingsError extends Error {
  override readonly name = 'GatewayClientSettingsError';
}

/** The user name that asks for `selection`, or the gateway's reason for refusing it. */
export function gatewayUserFor(
  client: string,
  selection: GatewaySelection,
): { ok: true; user: string } | { ok: false; reason: string } {
  const user = formatGatewayUser({
    client,
    labels: selection.labels ?? {},
    ...(selection.session !== undefined ? { session: selection.session } : {}),
    ...(selection.host !== undefined ? { host: selection.host } : {}),
  });
  // What the gateway would make of it: a name it would refuse is refused here, with its reason.
  const parsed = parseGatewayUser(user, [client]);
  return parsed.ok ? { ok: true, user } : { ok: false, reason: parsed.reason };
}

/** Where a client reaches a gateway bound to `address`: one bound to every address answers on loopback. */
export const reachableAddress = (address: string): string =>
  address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;

export type GatewayEndpoint = { ok: true; address: string; port: number } | { ok: false; reason: string };

/**
 * Where the app's gateway takes clients now: the running listener's address and port, or,
 * while it is off, the ones its settings name. None for SOCKS5 without a SOCKS5 listener,
 * or for a port the gateway picks only when it starts (0).
 */
export function gatewayEndpoint(status: GatewayStatus, socks: boolean): GatewayEndpoint {
  const port = socks ? (status.socksPort ?? status.settings.socksPort) : (status.port ?? status.settings.port);
  if (port === null) return { ok: false, reason: 'the gateway has no SOCKS5 listener: give it a SOCKS5 port first' };
  if (port === 0) return { ok: false, reason: 'the gateway picks its port when it starts (port 0): turn it on first' };
  return { ok: true, address: reachableAddress(status.address ?? status.settings.bind), port };
}

/** Everything a gateway client's settings are made of. */
export interface GatewayClientSettingsRequest extends GatewaySelection {
  client: { name: string; password: string };
  /** Where clients reach the listener (see {@link gatewayEndpoint}). */
  address: string;
  port: number;
  socks?: boolean | undefined;
  withCredentials?: boolean | undefined;
}

/**
 * The file of `format` for the gateway, a single proxy named `gateway`, and the user name it
 * sends. Throws {@link GatewayClientSettingsError} with the gateway's reason for a user name
 * it would refuse.
 */
export function buildGatewayClientSettings(
  format: ClientFormat,
  request: GatewayClientSettingsRequest,
): { file: ClientSettingsFile; user: string } {
  const made = gatewayUserFor(request.client.name, request);
  if (!made.ok) throw new GatewayClientSettingsError(made.reason);
  const file = buildClientSettings(format, [
    {
      name: 'gateway',
      kind: request.socks ? 'socks5' : 'http',
      address: reachableAddress(request.address),
      port: request.port,
      ...(request.withCredentials ? { credentials: { username: made.user, password: request.client.password } } : {}),
    },
  ]);
  return { file, user: made.user };
}

/** The Gateway view's selection fields, as typed (labels: `key=value` words, as in the Launch form). */
export interface GatewaySelectionForm {
  session: string;
  labels: string;
  host: string;
}
export type GatewaySelectionField = keyof GatewaySelectionForm;

/**
 * The fields checked as the gateway would check them, each on its own so that a problem is
 * shown under the field it is about: the selection and the user name, or the problems.
 */
export function checkGatewaySelection(
  client: string,
  form: GatewaySelectionForm,
):
  | { ok: true; selection: GatewaySelection; user: string }
  | { ok: false; problems: Partial<Record<GatewaySelectionField, string>> } {
  const problems: Partial<Record<GatewaySelectionField, string>> = {};
  const session = form.session.trim();
  const host = form.host.trim();
  let labels: Labels = {};
  try {
    labels = parseLabels(form.labels);
  } catch (err) {
    problems.labels = err instanceof Error ? err.message : String(err);
  }
  const parts: Array<[GatewaySelectionField, GatewaySelection]> = [
    ['session', session ? { session } : {}],
    ['labels', { labels }],
    ['host', host ? { host } : {}],
  ];
  for (const [field, part] of parts) {
    const made = problems[field] ? undefined : gatewayUserFor(client, part);
    if (made && !made.ok) problems[field] = made.reason;
  }
  const selection: GatewaySelection = {
    ...(session ? { session } : {}),
    ...(Object.keys(labels).length ? { labels } : {}),
    ...(host ? { host } : {}),
  };
  if (Object.keys(problems).length) return { ok: false, problems };
  const all = gatewayUserFor(client, selection);
  // Parts accepted one by one are accepted together (the grammar's only rule across parts is
  // a label asked for twice, which a map cannot hold); a rule added later still shows here.
  if (!all.ok) return { ok: false, problems: { labels: all.reason } };
  return { ok: true, selection, user: all.user };
}
