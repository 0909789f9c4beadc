/**
 * What an import would change: the parsed file's problems and a structured diff against
 * the current config, so a person sees what is replaced before anything is. Pure (the
 * renderer may compute it too); the backend's `config:previewImport` answers with it.
 */
import { z } from 'zod';
import type { ProviderConfig } from './config.js';

export const ChangeSchema = z.object({
  /** `added`, `removed` or `changed`. */
  kind: z.enum(['added', 'removed', 'changed']),
  /** The entry's name (a host, machine type or image), or the scalar's dotted path. */
  key: z.string(),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
});
export type Change = z.infer<typeof ChangeSchema>;

export const ConfigDiffSchema = z.object({
  hosts: z.array(ChangeSchema),
  machineTypes: z.array(ChangeSchema),
  images: z.array(ChangeSchema),
  /** Everything else (type, defaults.*, proxy.port, vendorData, other provider blocks), by path. */
  fields: z.array(ChangeSchema),
  /** True when nothing would change. */
  unchanged: z.boolean(),
});
export type ConfigDiff = z.infer<typeof ConfigDiffSchema>;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Sorted keys, so `{a, b}` equals `{b, a}`. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function diffEntries(before: Record<string, unknown>, after: Record<string, unknown>): Change[] {
  const changes: Change[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (!Object.hasOwn(after, key)) changes.push({ kind: 'removed', key, before: value });
    else if (!same(value, after[key])) changes.push({ kind: 'changed', key, before: value, after: after[key] });
  }
  for (const [key, value] of Object.entries(after))
    if (!Object.hasOwn(before, key)) changes.push({ kind: 'added', key, after: value });
  return changes;
}

function flatten(value: unknown, prefix: string, out: Record<string, unknown>): void {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (value !== undefined) {
    out[prefix] = value;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The scalar fields of a config: everything but the three named collections, flattened to paths. */
function scalars(config: unknown): Record<string, unknown> {
  if (!isRecord(config)) return {};
  const out: Record<string, unknown> = {};
  const { kvm, ...rest } = config;
  flatten(rest, '', out);
  if (isRecord(kvm)) {
    const { hosts: _h, machineTypes: _m, images: _i, ...kvmRest } = kvm;
    flatten(kvmRest, 'kvm', out);
  }
  return out;
}

function kvmOf(config: unknown): Record<string, unknown> {
  return isRecord(config) && isRecord(config.kvm) ? config.kvm : {};
}

function hostsOf(config: unknown): Record<string, unknown> {
  const hosts = kvmOf(config).hosts;
  if (!Array.isArray(hosts)) return {};
  // Hosts without a readable name are keyed by position, so they still show up.
  return Object.fromEntries(
    hosts.map((h: unknown, i) => [isRecord(h) && typeof h.name === 'string' ? h.name : `#${i}`, h]),
  );
}

function mapOf(config: unknown, field: 'machineTypes' | 'images'): Record<string, unknown> {
  const map = kvmOf(config)[field];
  return isRecord(map) ? map : {};
}

/**
 * The diff from `before` (the current config, absent when there is none usable) to
 * `after`. `after` may be a document that does not validate: the diff is computed
 * defensively over whatever parts it has, so a preview shows both problems and changes.
 */
export function diffConfigs(before: ProviderConfig | undefined, after: unknown): ConfigDiff {
  const diff = {
    hosts: diffEntries(hostsOf(before), hostsOf(after)),
    machineTypes: diffEntries(mapOf(before, 'machineTypes'), mapOf(after, 'machineTypes')),
    images: diffEntries(mapOf(before, 'images'), mapOf(after, 'images')),
    fields: diffEntries(scalars(before), scalars(after)),
  };
  return { ...diff, unchanged: Object.values(diff).every((list) => list.length === 0) };
}
