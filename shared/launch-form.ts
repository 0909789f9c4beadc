/**
 * The Launch dialog's form, and its inline checks with the launch request's own rules
 * (ProxySpecSchema, shared/proxy.ts): each field is judged by the schema's own field, and
 * the messages quote the schema's limits, so the form and `proxies:launch` never disagree.
 * The backend validates the request again when it arrives.
 */
import { DNS_LABEL_MAX } from './config.js';
import { LABELS_MAX, type Labels, expiryFrom, parseLabel } from './fleet-meta.js';
import {
  PROXY_ALLOW_MAX,
  PROXY_PORT_MAX,
  PROXY_PORT_MIN,
  type ProxyKind,
  type ProxySpec,
  ProxySpecSchema,
} from './proxy.js';

/** What the person typed, one string per field ("" = not set: the config's default or placement decides). */
export interface LaunchForm {
  name: string;
  host: string;
  machineType: string;
  image: string;
  port: string;
  /** What it speaks (absent = http). */
  kind?: ProxyKind;
  /** Addresses or CIDR blocks, separated by spaces, commas or new lines. */
  allow: string;
  /** `key=value` labels, separated by spaces or commas (absent or "" = none). */
  labels?: string;
  /** A time to live (`8h`, `2d`) or an ISO 8601 date and time (absent or "" = never expires). */
  ttl?: string;
}

const fields = ProxySpecSchema.shape;

export function nameError(name: string): string | undefined {
  if (!name) return 'A name is required.';
  if (name.length > DNS_LABEL_MAX) return `At most ${DNS_LABEL_MAX} characters.`;
  if (/[A-Z]/.test(name)) return 'Use lowercase letters only (a-z, 0-9 and "-").';
  if (!fields.name.safeParse(name).success)
    return 'Use a lowercase DNS label: a-z, 0-9 and "-", not starting or ending with "-".';
  return undefined;
}

export function portError(port: string): string | undefined {
  if (!port) return undefined;
  return fields.port.safeParse(Number(port)).success
    ? undefined
    : `A port is a whole number from ${PROXY_PORT_MIN} to ${PROXY_PORT_MAX}.`;
}

/** The allow list's entries, as typed. */
export function allowEntries(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

export function allowError(text: string): string | undefined {
  const entries = allowEntries(text);
  const entry = fields.allow.unwrap().element;
  const bad = entries.filter((c) => !entry.safeParse(c).success);
  if (bad.length) return `Not an IP address or CIDR block: ${bad.join(', ')}`;
  if (entries.length > PROXY_ALLOW_MAX) return `At most ${PROXY_ALLOW_MAX} entries.`;
  return undefined;
}

/**
 * The labels as typed, `key=value` separated by spaces or commas, parsed (the same rules as
 * `--label`); throws with the message of the first bad one. The Launch form and the table's
 * label editor both read their text with it.
 */
export function parseLabels(text: string): Labels {
  const labels = Object.fromEntries(
    text
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(parseLabel),
  );
  if (Object.keys(labels).length > LABELS_MAX) throw new Error(`At most ${LABELS_MAX} labels.`);
  return labels;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function labelsError(text: string | undefined): string | undefined {
  try {
    parseLabels(text ?? '');
    return undefined;
  } catch (err) {
    return messageOf(err);
  }
}

export function ttlError(text: string | undefined, now: number): string | undefined {
  if (!text) return undefined;
  try {
    expiryFrom(text, now);
    return undefined;
  } catch (err) {
    return messageOf(err);
  }
}

/** The first problem of each field; all undefined = the form can be sent. */
export function launchFormErrors(
  form: LaunchForm,
  now = Date.now(),
): {
  name?: string | undefined;
  port?: string | undefined;
  allow?: string | undefined;
  labels?: string | undefined;
  ttl?: string | undefined;
} {
  return {
    name: nameError(form.name),
    port: portError(form.port),
    allow: allowError(form.allow),
    labels: labelsError(form.labels),
    ttl: ttlError(form.ttl, now),
  };
}

/** The request of a valid form: empty fields left out, so that defaults and placement apply. */
export function formToSpec(form: LaunchForm, now = Date.now()): ProxySpec {
  const spec: ProxySpec = { name: form.name };
  if (form.host) spec.host = form.host;
  if (form.machineType) spec.machineType = form.machineType;
  if (form.image) spec.image = form.image;
  if (form.port) spec.port = Number(form.port);
  if (form.kind === 'socks5') spec.kind = 'socks5';
  const allow = allowEntries(form.allow);
  if (allow.length) spec.allow = allow;
  const labels = parseLabels(form.labels ?? '');
  if (Object.keys(labels).length) spec.labels = labels;
  if (form.ttl) spec.expiresAt = expiryFrom(form.ttl, now);
  return spec;
}
