/**
 * The metadata element every proxy domain carries: how the fleet is rebuilt from libvirt
 * alone (docs/metadata.md). Written with a default namespace; libvirt may hand it back
 * with a prefix, so parsing matches on the namespace URI, never on a prefix. It holds no
 * secrets: credentials stay on the workstation.
 */
import { XMLParser } from 'fast-xml-parser';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import { create } from 'xmlbuilder2';
import { z } from 'zod';
import { hasControlCharacters } from '../../../../../shared/text.js';
import { messageOf } from '../../../../../shared/errors.js';
import { IsoInstantSchema, LabelsSchema, LaunchedBySchema } from '../../../../../shared/fleet-meta.js';
import { isCidr } from '../../../../../shared/net.js';
import { ProxyKindSchema } from '../../../../../shared/proxy.js';

export const METADATA_NS = 'urn:egress-proxies:kvm:v1';
/** The prefix libvirt's SET_METADATA needs as its `key`. */
export const METADATA_KEY = 'egress';
/** Version of the element's format; readers refuse versions they do not know. */
export const METADATA_FORMAT_VERSION = 1;
/** Who manages a proxy: this app, or the operator. */
export const OWNERS = ['egress-desk', 'operator'] as const;

/** An element of our namespace that this version does not know: kept, not dropped. */
export interface ExtraElement {
  name: string;
  attributes: Record<string, string>;
  text?: string | undefined;
  children: ExtraElement[];
}

const ExtraElementSchema: z.ZodType<ExtraElement> = z.lazy(() =>
  z.object({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9._-]*$/),
    attributes: z.record(z.string(), z.string()),
    text: z.string().optional(),
    children: z.array(ExtraElementSchema),
  }),
);

const isoInstant = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d\d-\d\dT/.test(s), 'must be an ISO 8601 timestamp');

export const InstanceMetadataSchema = z.object({
  formatVersion: z.literal(METADATA_FORMAT_VERSION),
  name: z.string().min(1).max(63),
  owner: z.enum(OWNERS),
  host: z.string().min(1),
  machineType: z.string().min(1),
  image: z.object({ name: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  port: z.int().min(1).max(65535),
  createdAt: isoInstant,
  /** `sha256:<hex>` of the launch spec, to tell an identical relaunch from a conflicting one. */
  specHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  /** `key=value` labels (added after 0.1.0, same format version: older readers keep them as extra). Absent = none. */
  labels: LabelsSchema.optional(),
  /** The OS user and workstation that launched it; absent on proxies launched by 0.1.0 (nobody's). */
  launchedBy: LaunchedBySchema.optional(),
  /** When it is to be deleted (ISO 8601); absent = never. */
  expiresAt: IsoInstantSchema.optional(),
  /** What it speaks (added in 0.2, same format version: older readers keep it as extra). Absent = http; written only for socks5. */
  kind: ProxyKindSchema.optional(),
  /**
   * The clients the proxy accepts, when the launch gave its own list (added in 0.2, same
   * format version: older readers keep it as extra). Absent = the default (DEFAULT_ALLOW),
   * or a proxy launched before 0.2 whose list was not recorded. Not a secret (addresses and
   * prefixes, as in the proxy's own config); it lets a replacement rebuild the spec alone.
   */
  allow: z.array(z.string().refine(isCidr, 'must be an IP address or CIDR prefix')).min(1).max(64).optional(),
  /**
   * Set while this domain is the replacement of another of the same proxy name (its domain
   * name, on the same hypervisor or another) that still exists: the other one serves until
   * the replacement is ready and it is deleted; then this element is removed. Absent = not a replacement under way.
   */
  replaces: z.strictObject({ domain: z.string().regex(/^ep-[a-z0-9-]{1,60}$/), host: z.string().min(1) }).optional(),
  extra: z.array(ExtraElementSchema).default([]),
});
export type InstanceMetadata = z.infer<typeof InstanceMetadataSchema>;
export type InstanceMetadataInput = z.input<typeof InstanceMetadataSchema>;

/** The element is present but not what this version can read. */
export class MetadataError extends Error {
  override readonly name = 'MetadataError';
}

function checkText(field: string, value: string): string {
  if (hasControlCharacters(value)) throw new MetadataError(`metadata ${field} contains control characters`);
  return value;
}

function appendExtra(parent: XMLBuilder, extra: ExtraElement): void {
  const el = parent.ele(METADATA_NS, extra.name, extra.attributes);
  // Text of unknown elements may span lines; characters XML forbids are refused when serialising.
  if (extra.text !== undefined) el.txt(extra.text);
  for (const child of extra.children) appendExtra(el, child);
}

/** Adds the metadata element under `parent` (the domain's `<metadata>`). */
export function appendInstanceMetadata(parent: XMLBuilder, input: InstanceMetadataInput): void {
  const meta = InstanceMetadataSchema.parse(input);
  const el = parent.ele(METADATA_NS, 'instance', { version: String(meta.formatVersion) });
  const text = (name: string, value: string) => el.ele(METADATA_NS, name).txt(checkText(name, value)).up();
  text('name', meta.name);
  text('owner', meta.owner);
  text('host', meta.host);
  text('machineType', meta.machineType);
  el.ele(METADATA_NS, 'image', { name: checkText('image name', meta.image.name), sha256: meta.image.sha256 }).up();
  text('port', String(meta.port));
  text('createdAt', meta.createdAt);
  text('specHash', meta.specHash);
  // The new elements go after the old ones: an older reader keeps them, in order, as extra.
  const labels = Object.entries(meta.labels ?? {});
  if (labels.length) {
    const list = el.ele(METADATA_NS, 'labels');
    for (const [key, value] of labels) list.ele(METADATA_NS, 'label', { key, value }).up();
    list.up();
  }
  if (meta.launchedBy)
    el.ele(METADATA_NS, 'launchedBy', { user: meta.launchedBy.user, workstation: meta.launchedBy.workstation }).up();
  if (meta.expiresAt !== undefined) text('expiresAt', meta.expiresAt);
  // http is what a reader assumes without the element: written only when it is not http,
  // so an http proxy's element stays byte-identical to what 0.1 wrote.
  if (meta.kind !== undefined && meta.kind !== 'http') text('kind', meta.kind);
  if (meta.allow) {
    const list = el.ele(METADATA_NS, 'allow');
    for (const client of meta.allow) list.ele(METADATA_NS, 'client').txt(client).up();
    list.up();
  }
  if (meta.replaces)
    el.ele(METADATA_NS, 'replaces', {
      domain: meta.replaces.domain,
      host: checkText('replaces host', meta.replaces.host),
    }).up();
  for (const extra of meta.extra) appendExtra(el, extra);
}

/** The element alone, as DOMAIN_SET_METADATA takes it. */
export function buildInstanceMetadataXml(input: InstanceMetadataInput): string {
  const doc = create();
  appendInstanceMetadata(doc as unknown as XMLBuilder, input);
  return doc.end({ prettyPrint: true, headless: true, wellFormed: true });
}

/** A node as fast-xml-parser's preserveOrder mode returns it. */
type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

interface Element {
  tag: string;
  attributes: Record<string, string>;
  children: Element[];
  text: string;
}

function toElements(nodes: unknown): Element[] {
  if (!Array.isArray(nodes)) return [];
  const out: Element[] = [];
  for (const node of nodes as OrderedNode[]) {
    const tag = Object.keys(node).find((k) => k !== ':@' && k !== '#text');
    if (!tag) continue;
    const body = node[tag];
    const children = toElements(body);
    const text = Array.isArray(body)
      ? (body as OrderedNode[])
          .filter((n) => '#text' in n)
          .map((n) => String(n['#text']))
          .join('')
      : '';
    out.push({ tag, attributes: { ...(node[':@'] ?? {}) }, children, text });
  }
  return out;
}

type Scope = ReadonlyMap<string, string>;

function withDeclarations(scope: Scope, attributes: Record<string, string>): Scope {
  let next: Map<string, string> | undefined;
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'xmlns' || key.startsWith('xmlns:')) {
      next ??= new Map(scope);
      next.set(key === 'xmlns' ? '' : key.slice(6), value);
    }
  }
  return next ?? scope;
}

/** Splits `p:local` and resolves `p` in `scope`: the element's namespace URI and local name. */
function resolve(el: Element, scope: Scope): { ns: string | undefined; local: string } {
  const colon = el.tag.indexOf(':');
  const prefix = colon < 0 ? '' : el.tag.slice(0, colon);
  return { ns: scope.get(prefix), local: colon < 0 ? el.tag : el.tag.slice(colon + 1) };
}

/** Finds the first element in our namespace named `instance`, anywhere in the document. */
function findInstance(elements: Element[], scope: Scope): { el: Element; scope: Scope } | undefined {
  for (const el of elements) {
    const inner = withDeclarations(scope, el.attributes);
    const { ns, local } = resolve(el, inner);
    if (ns === METADATA_NS && local === 'instance') return { el, scope: inner };
    const found = findInstance(el.children, inner);
    if (found) return found;
  }
  return undefined;
}

function plainAttributes(attributes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).filter(([k]) => k !== 'xmlns' && !k.startsWith('xmlns:')));
}

function toExtra(el: Element, scope: Scope): ExtraElement {
  const inner = withDeclarations(scope, el.attributes);
  const extra: ExtraElement = {
    name: resolve(el, inner).local,
    attributes: plainAttributes(el.attributes),
    children: el.children.map((c) => toExtra(c, inner)),
  };
  if (el.text !== '') extra.text = el.text;
  return extra;
}

/**
 * The domain's `<metadata>` element, wrapped in a `<domain>` that keeps the root's
 * namespace declarations (a prefix may be declared there). Undefined when the text is not
 * a domain with one metadata section: the caller then parses the whole document.
 */
function metadataSection(xml: string): string | undefined {
  const root = /^\s*(?:<\?xml[^>]*\?>\s*)?<domain\b([^>]*)>/.exec(xml);
  if (!root) return undefined;
  const start = xml.search(/<metadata[\s>]/);
  const end = xml.indexOf('</metadata>');
  if (
    start < 0 ||
    end < start ||
    (xml.indexOf('<metadata', start + 1) !== -1 && xml.indexOf('<metadata', start + 1) < end)
  )
    return undefined;
  const declarations = (root[1] ?? '').match(/\sxmlns(:[A-Za-z_][\w.-]*)?\s*=\s*("[^"]*"|'[^']*')/g)?.join('') ?? '';
  return `<domain${declarations}>${xml.slice(start, end + '</metadata>'.length)}</domain>`;
}

const KNOWN = new Set([
  'name',
  'owner',
  'host',
  'machineType',
  'image',
  'port',
  'createdAt',
  'specHash',
  'labels',
  'launchedBy',
  'expiresAt',
  'kind',
  'allow',
  'replaces',
]);

/** The `<label key value>` children of `<labels>` in our namespace; a repeated key is malformed, not silently merged. */
function labelsOf(el: Element, scope: Scope): Record<string, unknown> {
  // No prototype: a key such as "__proto__" must reach the schema (and be refused there), not vanish.
  const labels = Object.create(null) as Record<string, unknown>;
  for (const child of el.children) {
    const { ns, local } = resolve(child, withDeclarations(scope, child.attributes));
    if (ns !== METADATA_NS || local !== 'label') continue;
    const key = child.attributes.key ?? '';
    if (Object.hasOwn(labels, key))
      throw new MetadataError(`metadata labels: key ${JSON.stringify(key)} appears twice`);
    labels[key] = child.attributes.value;
  }
  return labels;
}

/** The `<client>` texts of `<allow>` in our namespace, in order. */
function clientsOf(el: Element, scope: Scope): string[] {
  const clients: string[] = [];
  for (const child of el.children) {
    const { ns, local } = resolve(child, withDeclarations(scope, child.attributes));
    if (ns === METADATA_NS && local === 'client') clients.push(child.text);
  }
  return clients;
}

export interface ParseOptions {
  /**
   * The XML is the element alone, as DOMAIN_GET_METADATA returns it for our URI. libvirt
   * 9.0 strips the namespace from that reply (`<instance version="1">`, or only a stray
   * `xmlns:egress` after SET_METADATA), so unprefixed names count as ours there.
   */
  element?: boolean;
}

/**
 * Reads our metadata element from a domain's XML, or from the element alone (as
 * GET_METADATA returns it, with `{ element: true }`). Returns undefined when there is
 * none: not one of our domains. Throws MetadataError when the element is there but malformed.
 */
export function parseInstanceMetadata(xml: string, options: ParseOptions = {}): InstanceMetadata | undefined {
  if (/<!DOCTYPE/i.test(xml)) throw new MetadataError('metadata XML must not contain a DOCTYPE');
  // Listing a fleet parses hundreds of domain XMLs: a domain that never names our
  // namespace is not ours, and of one that does only <metadata> needs parsing.
  if (!options.element && !xml.includes(METADATA_NS)) return undefined;
  const source = options.element ? xml : (metadataSection(xml) ?? xml);
  let elements: Element[];
  try {
    elements = toElements(parser.parse(source));
  } catch (err) {
    throw new MetadataError(`cannot parse XML: ${messageOf(err)}`);
  }
  const found = findInstance(elements, new Map(options.element ? [['', METADATA_NS]] : []));
  if (!found) return undefined;
  const fields: Record<string, unknown> = { formatVersion: Number(found.el.attributes.version), extra: [] };
  const extra: ExtraElement[] = [];
  for (const child of found.el.children) {
    const childScope = withDeclarations(found.scope, child.attributes);
    const { ns, local } = resolve(child, childScope);
    if (ns !== METADATA_NS) continue; // elements of other namespaces belong to someone else
    if (!KNOWN.has(local)) {
      extra.push(toExtra(child, found.scope));
      continue;
    }
    if (local === 'image') fields.image = { name: child.attributes.name, sha256: child.attributes.sha256 };
    else if (local === 'port') fields.port = Number(child.text);
    else if (local === 'labels') fields.labels = labelsOf(child, childScope);
    else if (local === 'allow') fields.allow = clientsOf(child, childScope);
    else if (local === 'replaces') fields.replaces = { domain: child.attributes.domain, host: child.attributes.host };
    else if (local === 'launchedBy')
      fields.launchedBy = { user: child.attributes.user, workstation: child.attributes.workstation };
    else fields[local] = child.text;
  }
  fields.extra = extra;
  const parsed = InstanceMetadataSchema.safeParse(fields);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'instance'}: ${i.message}`).join('; ');
    throw new MetadataError(`metadata element of ${METADATA_NS} is malformed: ${problems}`);
  }
  return parsed.data;
}
