/**
 * The fleet as the renderer sees it: proxy records, per-host listing status, and the
 * inspector's view of one proxy. Credentials never appear here (see `proxies:url`).
 */
import { z } from 'zod';
import { ProxyKindSchema, ProxySpecSchema } from './proxy.js';
import { LabelKeySchema, LabelsSchema, LaunchedBySchema } from './fleet-meta.js';

/** A domain's states, named, in virDomainState's order (index = libvirt's value: the client maps codes through it). */
export const DOMAIN_STATES = [
  'nostate',
  'running',
  'blocked',
  'paused',
  'shutdown',
  'shutoff',
  'crashed',
  'pmsuspended',
] as const;
export const ADDRESS_SOURCES = ['lease', 'agent', 'arp'] as const;

export const GuestAddressSchema = z.object({
  address: z.string(),
  prefix: z.number(),
  family: z.enum(['ipv4', 'ipv6']),
  /** Where it was learnt: the network's DHCP lease, the guest agent, or the host's ARP table. */
  source: z.enum(ADDRESS_SOURCES),
  mac: z.string().optional(),
  interface: z.string().optional(),
  /** For a lease: when it expires (ms since the epoch). */
  expiresAt: z.number().optional(),
});
export type GuestAddressView = z.infer<typeof GuestAddressSchema>;

export const ProxyRecordSchema = z.object({
  name: z.string(),
  /** The libvirt domain name. */
  id: z.string(),
  host: z.string(),
  state: z.enum(DOMAIN_STATES),
  port: z.number(),
  /** What it speaks; absent = http (proxies launched before 0.2 carry no kind). */
  kind: ProxyKindSchema.optional(),
  machineType: z.string(),
  image: z.object({ name: z.string(), sha256: z.string() }),
  /** ISO 8601. */
  createdAt: z.string(),
  owner: z.enum(['egress-desk', 'operator']),
  specHash: z.string(),
  addresses: z.array(GuestAddressSchema),
  /**
   * Set when the host entry its metadata names is not an entry on this hypervisor any more
   * (renamed or removed from the config): the name it carries. It is listed under the
   * first entry on its hypervisor and never treated as broken.
   */
  unknownHost: z.string().optional(),
  /**
   * Why a running proxy's addresses are unknown, when the listing can tell: its network is
   * not active (`virsh net-destroy`) or its leases could not be read. Absent otherwise.
   */
  addressNote: z.string().optional(),
  labels: LabelsSchema.optional(),
  /** Who launched it (OS user and workstation); absent on proxies launched by 0.1.0. */
  launchedBy: LaunchedBySchema.optional(),
  /** ISO 8601: when it is to be deleted; absent = never. */
  expiresAt: z.string().optional(),
  /**
   * Set on a replacement under way (`proxies replace`): the domain name of the proxy it
   * replaces, which still serves (URL, inspect) until this one is ready and it is deleted.
   */
  replacing: z.string().optional(),
});
export type ProxyRecordView = z.infer<typeof ProxyRecordSchema>;

export const HostListingSchema = z.object({
  host: z.string(),
  ok: z.boolean(),
  error: z.string().optional(),
  proxies: z.number(),
  /** Another entry reaches the same hypervisor and lists its domains: that entry's name. */
  sameAs: z.string().optional(),
  unreadable: z.array(z.object({ domain: z.string(), error: z.string() })),
});

export const FleetListingSchema = z.object({
  proxies: z.array(ProxyRecordSchema),
  hosts: z.array(HostListingSchema),
  /** The backend's OS user and workstation: a proxy whose `launchedBy` is this is "mine". */
  you: LaunchedBySchema.optional(),
});
export type FleetListingView = z.infer<typeof FleetListingSchema>;

/** The text a password is replaced with wherever a view shows seed data. */
export const MASK = '••••••';

export const SeedViewSchema = z.object({
  userData: z.string(),
  metaData: z.string(),
  vendorData: z.string(),
  /**
   * True when re-rendering the proxy from its metadata and today's config reproduced its
   * recorded spec hash (so this is what the guest got); false when something differs
   * (a changed vendor-data, a custom allow list) and this is only an approximation.
   */
  exact: z.boolean(),
  note: z.string().optional(),
});

export const ProxyInspectionSchema = z.object({
  proxy: ProxyRecordSchema,
  /** The parsed metadata element, field by field. */
  metadata: z.object({
    formatVersion: z.number(),
    name: z.string(),
    owner: z.string(),
    host: z.string(),
    machineType: z.string(),
    image: z.object({ name: z.string(), sha256: z.string() }),
    port: z.number(),
    kind: ProxyKindSchema.optional(),
    createdAt: z.string(),
    specHash: z.string(),
    labels: LabelsSchema.optional(),
    launchedBy: LaunchedBySchema.optional(),
    expiresAt: z.string().optional(),
    replaces: z.object({ domain: z.string(), host: z.string() }).optional(),
    extra: z.array(z.unknown()),
  }),
  domainXml: z.string(),
  addresses: z.array(GuestAddressSchema),
  /** Why an address source said nothing, per source. */
  problems: z.record(z.string(), z.string()),
  hasCredentials: z.boolean(),
  /** The seed (cloud-init NoCloud) with credentials masked; absent when it cannot be rebuilt. */
  seed: SeedViewSchema.optional(),
});
export type ProxyInspectionView = z.infer<typeof ProxyInspectionSchema>;

export const ProxyNameSchema = z.strictObject({ name: ProxySpecSchema.shape.name });
export const ProxyDeleteSchema = z.strictObject({
  name: ProxySpecSchema.shape.name,
  /** Must be `true`: a delete is never the default of anything. */
  confirm: z.literal(true, { error: 'deleting a proxy needs confirm: true' }),
  /** Someone else launched it and the person agreed, knowing whose it is (else NotYourProxyError). */
  force: z.boolean().optional(),
});
export const ProxyStopSchema = z.strictObject({
  name: ProxySpecSchema.shape.name,
  /** Someone else launched it and the person agreed, knowing whose it is (else NotYourProxyError). */
  force: z.boolean().optional(),
});
/** `proxies:replace`: a fresh proxy of the same name, spec and credentials, ready before the old one is deleted. */
export const ProxyReplaceSchema = z.strictObject({
  /** One proxy, or a selection: replaced one at a time, in this order; the first failure stops the rest. */
  names: z.array(ProxySpecSchema.shape.name).min(1).max(1000),
  /** Where the new one goes; absent = where the old one is. */
  host: z.string().min(1).max(63).optional(),
  /** Someone else launched it and the person agreed, knowing whose it is (else NotYourProxyError). */
  force: z.boolean().optional(),
});
/** `proxies:label`: labels to set, then keys to remove, in the proxy's metadata (no restart). */
export const ProxyLabelSchema = z.strictObject({
  name: ProxySpecSchema.shape.name,
  set: LabelsSchema.optional(),
  remove: z.array(LabelKeySchema).max(64).optional(),
});
export const ProxyLabelResultSchema = z.object({ host: z.string(), labels: LabelsSchema, changed: z.boolean() });
