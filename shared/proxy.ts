/**
 * A launch request: what a person (app, CLI) or the operator asks for. Everything not
 * given comes from the config (defaults) or from placement.
 */
import { z } from 'zod';
import { DNS_LABEL, DNS_LABEL_MAX } from './config.js';
import { isCidr } from './net.js';
import { IsoInstantSchema, LabelsSchema } from './fleet-meta.js';

/** A launched proxy's port range, and how many entries its allow list may have (the launch form reads them: shared/launch-form.ts). */
export const PROXY_PORT_MIN = 1;
export const PROXY_PORT_MAX = 65535;
export const PROXY_ALLOW_MAX = 64;

const CREDENTIAL = /^[A-Za-z0-9._~-]{1,128}$/;
const CREDENTIAL_MESSAGE = 'must be 1-128 characters of letters, digits, ".", "_", "~" and "-"';

/**
 * What a proxy speaks: an HTTP forward proxy (tinyproxy) or SOCKS5 (Dante). Kept in the
 * metadata element; a proxy whose metadata does not say is `http` (everything before 0.2).
 */
export const PROXY_KINDS = ['http', 'socks5'] as const;
export const ProxyKindSchema = z.enum(PROXY_KINDS);
export type ProxyKind = z.infer<typeof ProxyKindSchema>;

/** The port a SOCKS5 proxy listens on when the spec names none (SOCKS's registered port); the config's `proxy.port` is http's. */
export const SOCKS5_DEFAULT_PORT = 1080;

/** A proxy's kind, `http` when its record or metadata does not say. */
export function kindOf(p: { kind?: ProxyKind | undefined }): ProxyKind {
  return p.kind ?? 'http';
}

/** The URL scheme clients use for a kind (curl, browsers, HTTP_PROXY-style variables). */
export function proxyScheme(kind: ProxyKind): 'http' | 'socks5' {
  return kind;
}

export const ProxyCredentialsSchema = z.strictObject({
  username: z.string().regex(CREDENTIAL, CREDENTIAL_MESSAGE),
  password: z.string().regex(CREDENTIAL, CREDENTIAL_MESSAGE),
});
export type ProxyCredentials = z.infer<typeof ProxyCredentialsSchema>;

export const ProxySpecSchema = z.strictObject({
  name: z
    .string()
    .regex(DNS_LABEL, `must be a lowercase DNS label (a-z, 0-9 and "-", at most ${DNS_LABEL_MAX} characters)`),
  /** A host name from the config; absent = placement picks one. */
  host: z.string().min(1).optional(),
  machineType: z.string().min(1).optional(),
  image: z.string().min(1).optional(),
  port: z.int().min(PROXY_PORT_MIN).max(PROXY_PORT_MAX).optional(),
  /** What it speaks; absent = http. */
  kind: ProxyKindSchema.optional(),
  /** Clients allowed to use the proxy (addresses or CIDR blocks); absent = loopback and private ranges. */
  allow: z
    .array(z.string().refine(isCidr, 'must be an IP address or CIDR block'))
    .min(1)
    .max(PROXY_ALLOW_MAX)
    .optional(),
  /** BasicAuth (http) or username/password (socks5) credentials; absent = generated. */
  credentials: ProxyCredentialsSchema.optional(),
  /** false turns BasicAuth off (the allow list is then the only protection). */
  auth: z.boolean().optional(),
  /** `key=value` labels kept in the metadata (editable later); not part of the spec hash. */
  labels: LabelsSchema.optional(),
  /** When the proxy is to be deleted (ISO 8601); absent = never. Not part of the spec hash. */
  expiresAt: IsoInstantSchema.optional(),
});
export type ProxySpec = z.infer<typeof ProxySpecSchema>;
