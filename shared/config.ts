/**
 * The provider configuration: the operator's format, shared by the app, the CLI and the
 * operator that runs the same KVM provider at scale. Field names and shapes are binding
 * (see docs/config.md); this module is the single source of their schemas and types.
 *
 * Parsing is split in two: zod checks the structure (types, ranges, unknown fields),
 * {@link crossFieldIssues} checks rules that span fields (duplicate names, defaults that
 * name existing entries, the envelope rule). Both always run so that a person sees every
 * problem of a file at once, not one per attempt.
 */
import { z } from 'zod';
import { DEFAULT_VENDOR_DATA } from './vendor-data.js';
import { type ConfigIssue, configErrorMap, formatPath, issuesFromZod } from './config-issues.js';
import { isIpv4, isIpv6 } from './net.js';

export { type ConfigIssue, formatIssue } from './config-issues.js';

/** Provider types the operator knows. This app manages `kvm`; the others pass through. */
export const PROVIDER_TYPES = ['kvm', 'gcp', 'kubernetes'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const DISK_FORMATS = ['qcow2', 'raw'] as const;
export const DOMAIN_TYPES = ['auto', 'kvm', 'qemu'] as const;
export const URL_SCHEMES = ['https', 'http', 'file'] as const;

/** Defaults applied by {@link withDefaults}; documented in docs/config.md. */
export const DEFAULTS = {
  diskGiB: 10,
  socketPath: '/var/run/libvirt/libvirt-sock',
  pool: 'default',
  network: 'default',
  domainType: 'auto',
  imageFormat: 'qcow2',
  proxyPort: 3128,
  vendorData: DEFAULT_VENDOR_DATA,
} as const;

/** The longest DNS label, in characters (RFC 1035): what {@link DNS_LABEL} allows. */
export const DNS_LABEL_MAX = 63;
/** A lowercase DNS label (RFC 1123): also safe in libvirt names and volume names. */
export const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const DNS_LABEL_MESSAGE =
  'must be a lowercase DNS label (a-z, 0-9 and "-", at most 63 characters, not starting or ending with "-")';
/** Names of machine types and images: map keys that end up in volume names and metadata. */
export const ENTRY_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const ENTRY_NAME_MESSAGE =
  'must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit';
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
/** An IPv6 address's zone (`fe80::1%eth0`): SSH reaches a link-local host through one. */
const IPV6_ZONE = /^[A-Za-z0-9_.-]+$/;
/** Longest address accepted: a DNS name's limit, more than any IPv6 address with a zone. */
const MAX_ADDRESS_LENGTH = 253;
const SSH_USER = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?$/;
/** Largest vendor-data accepted: it travels on a seed ISO and in libvirt-free exports. */
export const MAX_VENDOR_DATA_BYTES = 256 * 1024;

/** Byte length of `s` as UTF-8; shared/ also runs in the renderer, where Buffer does not exist. */
function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

const port = z.int().min(1).max(65535);
const nonEmpty = z.string().min(1);

/** True for "local", a hostname or an IP address: what `address` accepts. */
export function isValidAddress(value: string): boolean {
  if (value.length > MAX_ADDRESS_LENGTH) return false;
  return value === 'local' || isIpv4(value) || HOSTNAME.test(value) || isIpv6WithZone(value);
}

function isIpv6WithZone(value: string): boolean {
  const zone = value.indexOf('%');
  return zone === -1 ? isIpv6(value) : isIpv6(value.slice(0, zone)) && IPV6_ZONE.test(value.slice(zone + 1));
}

export const KVMHostSchema = z.strictObject({
  name: z.string().regex(DNS_LABEL, DNS_LABEL_MESSAGE),
  address: nonEmpty.refine(isValidAddress, {
    message: 'must be "local", a hostname or an IP address (user and port go in sshUser and sshPort)',
  }),
  sshUser: z.string().regex(SSH_USER, 'must be a user name (letters, digits, ".", "_" and "-")').optional(),
  sshPort: port.optional(),
  identityFile: nonEmpty.optional(),
  socketPath: z.string().startsWith('/', 'must be an absolute path').optional(),
  pool: nonEmpty.optional(),
  network: nonEmpty.optional(),
  bridge: nonEmpty.optional(),
  domainType: z.enum(DOMAIN_TYPES).optional(),
});

export const KVMMachineTypeSchema = z.strictObject({
  vcpus: z.int().min(1).max(1024),
  memoryMiB: z
    .int()
    .min(128)
    .max(16 * 1024 * 1024),
  diskGiB: z.int().min(1).max(65536).optional(),
});

export const KVMImageSchema = z.strictObject({
  url: nonEmpty.refine(hasAllowedScheme, {
    error: (iss) => {
      const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(String(iss.input))?.[1];
      const got =
        scheme && !(URL_SCHEMES as readonly string[]).includes(scheme.toLowerCase()) ? ` (got "${scheme}")` : '';
      return `must be a URL with scheme ${URL_SCHEMES.join(', ')}${got}`;
    },
  }),
  sha256: z.string().refine((v) => /^[0-9a-f]{64}$/.test(v), {
    error: (iss) =>
      /^[0-9a-fA-F]{64}$/.test(String(iss.input))
        ? 'must be lowercase hexadecimal'
        : 'must be 64 hexadecimal characters',
  }),
  format: z.enum(DISK_FORMATS).optional(),
});

export const KVMDefaultsSchema = z.strictObject({
  machineType: nonEmpty.optional(),
  image: nonEmpty.optional(),
});

export const KVMProxyDefaultsSchema = z.strictObject({
  port: port.optional(),
});

export const KVMConfigSchema = z.strictObject({
  hosts: z.array(KVMHostSchema).min(1, 'at least one host is required'),
  machineTypes: z.record(z.string(), KVMMachineTypeSchema),
  images: z.record(z.string(), KVMImageSchema).optional(),
  defaults: KVMDefaultsSchema.optional(),
  vendorData: z
    .string()
    .refine((s) => utf8Length(s) <= MAX_VENDOR_DATA_BYTES, {
      message: `must be at most ${MAX_VENDOR_DATA_BYTES / 1024} KiB`,
    })
    .optional(),
  proxy: KVMProxyDefaultsSchema.optional(),
});

/** Blocks of the other providers: opaque here, kept as they are. */
const OpaqueBlock = z.record(z.string(), z.unknown());

export const ProviderConfigSchema = z.strictObject({
  type: z.enum(PROVIDER_TYPES),
  kvm: KVMConfigSchema.optional(),
  gcp: OpaqueBlock.optional(),
  kubernetes: OpaqueBlock.optional(),
});

export type KVMHost = z.infer<typeof KVMHostSchema>;
export type KVMMachineType = z.infer<typeof KVMMachineTypeSchema>;
export type KVMImage = z.infer<typeof KVMImageSchema>;
export type KVMConfig = z.infer<typeof KVMConfigSchema>;
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

/** `T` with every key present and defined: `Required`, which keeps zod's `| undefined`, also drops that. */
type Filled<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };
/** A host with every default filled in. */
export type ResolvedKVMHost = KVMHost & Filled<Pick<KVMHost, 'socketPath' | 'pool' | 'domainType'>>;
export type ResolvedKVMMachineType = Filled<KVMMachineType>;
export type ResolvedKVMImage = Filled<KVMImage>;
/** A KVM config with every default filled in: what the provider works from. */
export interface ResolvedKVMConfig {
  hosts: ResolvedKVMHost[];
  machineTypes: Record<string, ResolvedKVMMachineType>;
  images: Record<string, ResolvedKVMImage>;
  defaults: z.infer<typeof KVMDefaultsSchema>;
  vendorData: string;
  proxy: { port: number };
}

function hasAllowedScheme(value: string): boolean {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value);
  if (!match) return false;
  const scheme = match[1]!.toLowerCase();
  if (!(URL_SCHEMES as readonly string[]).includes(scheme)) return false;
  try {
    const url = new URL(value);
    return scheme === 'file' ? url.pathname.length > 1 : url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** The provider blocks that are present in `config`: the one helper behind the envelope rule. */
export function setBlocks(config: Record<string, unknown>): ProviderType[] {
  return PROVIDER_TYPES.filter((t) => config[t] !== undefined && config[t] !== null);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rules that span fields. Works on the raw input, defensively, so that it reports even
 * when parts of the file are structurally wrong (zod reports those).
 */
export function crossFieldIssues(input: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (!isRecord(input)) return issues;
  const type = input.type;
  if (typeof type === 'string' && (PROVIDER_TYPES as readonly string[]).includes(type)) {
    for (const block of setBlocks(input)) {
      if (block !== type) issues.push({ path: block, message: `type is ${type} but a ${block} block is set` });
    }
    if (type === 'kvm' && input.kvm === undefined) {
      issues.push({ path: 'kvm', message: 'required when type is kvm' });
    }
  }
  const kvm = input.kvm;
  if (!isRecord(kvm)) return issues;

  if (Array.isArray(kvm.hosts)) {
    const seen = new Map<string, number>();
    kvm.hosts.forEach((host, i) => {
      if (!isRecord(host)) return;
      const name = host.name;
      if (typeof name === 'string') {
        if (seen.has(name)) {
          issues.push({
            path: `kvm.hosts[${i}].name`,
            message: `duplicate host name ${JSON.stringify(name)} (also kvm.hosts[${seen.get(name)}])`,
          });
        } else {
          seen.set(name, i);
        }
      }
      if (host.network !== undefined && host.bridge !== undefined) {
        issues.push({ path: `kvm.hosts[${i}].bridge`, message: 'set either network or bridge, not both' });
      }
      if (host.address === 'local') {
        for (const field of ['sshUser', 'sshPort', 'identityFile'] as const) {
          if (host[field] !== undefined) {
            issues.push({
              path: `kvm.hosts[${i}].${field}`,
              message: 'not used when address is "local" (this machine is reached through its libvirt socket)',
            });
          }
        }
      }
    });
  }

  const mapNames = (key: 'machineTypes' | 'images'): string[] | undefined => {
    const map = kvm[key];
    if (!isRecord(map)) return undefined;
    for (const name of Object.keys(map)) {
      if (!ENTRY_NAME.test(name))
        issues.push({ path: formatPath(['kvm', key, name]), message: `name ${ENTRY_NAME_MESSAGE}` });
    }
    return Object.keys(map);
  };
  const machineTypes = mapNames('machineTypes');
  const images = mapNames('images') ?? (kvm.images === undefined ? [] : undefined);
  if (machineTypes && machineTypes.length === 0) {
    issues.push({ path: 'kvm.machineTypes', message: 'at least one machine type is required' });
  }

  const defaults = kvm.defaults;
  if (isRecord(defaults)) {
    const check = (field: 'machineType' | 'image', names: string[] | undefined, noun: string) => {
      const value = defaults[field];
      // An empty machineTypes map is reported on its own; naming it again here adds nothing.
      if (typeof value !== 'string' || value === '' || names === undefined || names.includes(value)) return;
      if (names.length === 0 && field === 'machineType') return;
      const known = names.length ? `known: ${names.join(', ')}` : `none is defined`;
      issues.push({ path: `kvm.defaults.${field}`, message: `no ${noun} named ${JSON.stringify(value)} (${known})` });
    };
    check('machineType', machineTypes, 'machine type');
    check('image', images, 'image');
  }
  return issues;
}

/**
 * Orders issues as their fields appear in the document, so that a person reads them top
 * to bottom. Paths are compared by the position of each step in the input.
 */
function sortByDocumentOrder(issues: ConfigIssue[], input: unknown): ConfigIssue[] {
  const rank = (path: string): number[] => {
    const out: number[] = [];
    let node: unknown = input;
    for (const m of path.matchAll(/\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|([^.[\]]+)/g)) {
      const key = m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? (JSON.parse(`"${m[2]}"`) as string) : m[3]!;
      if (Array.isArray(node) && typeof key === 'number') {
        out.push(key);
        node = node[key];
      } else if (isRecord(node)) {
        const keys = Object.keys(node);
        const index = keys.indexOf(String(key));
        out.push(index < 0 ? keys.length : index);
        node = node[String(key)];
      } else {
        out.push(Number.MAX_SAFE_INTEGER);
        node = undefined;
      }
    }
    return out;
  };
  const ranked = issues.map((issue, order) => ({ issue, order, key: rank(issue.path) }));
  ranked.sort((a, b) => {
    for (let i = 0; i < Math.min(a.key.length, b.key.length); i++) {
      if (a.key[i] !== b.key[i]) return a.key[i]! - b.key[i]!;
    }
    return a.key.length - b.key.length || a.order - b.order;
  });
  return ranked.map((r) => r.issue);
}

/** The field names a strict object accepts at `path` in `schema` (for "did you mean"). */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const unwrap = (s: z.ZodType): z.ZodType => (s instanceof z.ZodOptional ? unwrap(s.unwrap() as z.ZodType) : s);
  let current: z.ZodType | undefined = schema;
  for (const part of path) {
    const s: z.ZodType = unwrap(current);
    if (s instanceof z.ZodObject) current = (s.shape as Record<string, z.ZodType>)[String(part)];
    else if (s instanceof z.ZodArray) current = s.element as z.ZodType;
    else if (s instanceof z.ZodRecord) current = s.valueType as z.ZodType;
    else return [];
    if (current === undefined) return [];
  }
  const s = unwrap(current);
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

/** The result of validating a parsed file: the typed config, or every problem found. */
export type ValidationResult = { ok: true; config: ProviderConfig } | { ok: false; issues: ConfigIssue[] };

/** Validates an already-parsed document (from YAML or JSON) as a ProviderConfig. */
export function validateProviderConfig(input: unknown): ValidationResult {
  const parsed = ProviderConfigSchema.safeParse(input, { error: configErrorMap });
  const structural = parsed.success
    ? []
    : issuesFromZod(parsed.error.issues, (path) => knownKeysAt(ProviderConfigSchema, path));
  const issues = sortByDocumentOrder([...structural, ...crossFieldIssues(input)], input);
  if (issues.length > 0 || !parsed.success) return { ok: false, issues };
  return { ok: true, config: parsed.data };
}

/**
 * Fills every default into a copy of `config`. The input is never mutated: the config
 * object is shared (store, services, exports) and defaults must not leak back into it.
 */
export function withDefaults(config: KVMConfig): ResolvedKVMConfig {
  const hosts = config.hosts.map((h): ResolvedKVMHost => {
    const host: ResolvedKVMHost = {
      ...h,
      socketPath: h.socketPath ?? DEFAULTS.socketPath,
      pool: h.pool ?? DEFAULTS.pool,
      domainType: h.domainType ?? DEFAULTS.domainType,
    };
    if (h.bridge === undefined) host.network = h.network ?? DEFAULTS.network;
    return host;
  });
  const machineTypes = Object.fromEntries(
    Object.entries(config.machineTypes).map(([name, m]) => [name, { ...m, diskGiB: m.diskGiB ?? DEFAULTS.diskGiB }]),
  );
  const images = Object.fromEntries(
    Object.entries(config.images ?? {}).map(([name, img]) => [
      name,
      { ...img, format: img.format ?? DEFAULTS.imageFormat },
    ]),
  );
  return {
    hosts,
    machineTypes,
    images,
    defaults: { ...config.defaults },
    vendorData: config.vendorData ?? DEFAULTS.vendorData,
    proxy: { port: config.proxy?.port ?? DEFAULTS.proxyPort },
  };
}

/** The normalised ProviderConfig with defaults applied to its kvm block (for export). */
export function providerWithDefaults(config: ProviderConfig): ProviderConfig {
  if (config.kvm === undefined) return structuredClone(config);
  const { kvm: _kvm, ...rest } = config;
  return { ...structuredClone(rest), kvm: withDefaults(config.kvm) };
}
