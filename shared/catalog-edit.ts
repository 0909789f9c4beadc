/**
 * Edits of the catalog (machine types, images and the defaults) as the app makes them: the
 * channels' input schemas, derived from the config's own entry schemas, and one pure check
 * of a candidate edit against the current config. The renderer runs the check as the
 * person types (messages under each field); the backend runs it again before the edit
 * reaches `ConfigWrites.edit`, so both say the same thing, in the same words as a
 * config file's validation (`kvm.machineTypes.big.vcpus: must be at least 1 (got 0)`).
 */
import { z } from 'zod';
import {
  type ConfigIssue,
  type KVMConfig,
  DISK_FORMATS,
  ENTRY_NAME,
  ENTRY_NAME_MESSAGE,
  KVMImageSchema,
  KVMMachineTypeSchema,
  type ProviderConfig,
} from './config.js';
import { configErrorMap, formatIssue, formatPath } from './config-issues.js';

/** A machine type's or an image's name: a key of its map in the config. */
export const EntryNameSchema = z.string().regex(ENTRY_NAME, ENTRY_NAME_MESSAGE);

/** `machineTypes:save`: add (no `previousName`), change, or rename (`previousName` is the current name). */
export const MachineTypeSaveSchema = z.strictObject({
  name: EntryNameSchema,
  previousName: EntryNameSchema.optional(),
  vcpus: KVMMachineTypeSchema.shape.vcpus,
  memoryMiB: KVMMachineTypeSchema.shape.memoryMiB,
  // Optional in a file (10 GiB by default); the app always writes it, so what is saved is what was shown.
  diskGiB: KVMMachineTypeSchema.shape.diskGiB.unwrap(),
});
export type MachineTypeSave = z.infer<typeof MachineTypeSaveSchema>;

/** `images:save`: add, change or rename an image. */
export const ImageSaveSchema = z.strictObject({
  name: EntryNameSchema,
  previousName: EntryNameSchema.optional(),
  url: KVMImageSchema.shape.url,
  sha256: KVMImageSchema.shape.sha256,
  format: z.enum(DISK_FORMATS),
});
export type ImageSave = z.infer<typeof ImageSaveSchema>;

const removeSchema = (noun: string) =>
  z.strictObject({
    name: EntryNameSchema,
    confirm: z.literal(true, { error: `removing a ${noun} changes the config: it needs confirm: true` }),
  });
export const MachineTypeRemoveSchema = removeSchema('machine type');
/**
 * `images:remove` changes the config only: the cached file stays. The cache is keyed by
 * digest, not by name (another entry, or a re-added one, may use the same file), and it is
 * what every host's base volume is uploaded from.
 */
export const ImageRemoveSchema = removeSchema('image');

/** `defaults:set`: the machine type and/or image that a launch uses when it names none. */
export const DefaultsSetSchema = z
  .strictObject({ machineType: EntryNameSchema.optional(), image: EntryNameSchema.optional() })
  .refine((d) => d.machineType !== undefined || d.image !== undefined, {
    message: 'name a machineType or an image to make the default',
  });
export type DefaultsSet = z.infer<typeof DefaultsSetSchema>;

/** What a catalog edit channel answers: the file written. */
export const CatalogEditResultSchema = z.object({ path: z.string() });

export const MACHINE_TYPE_FIELDS = ['name', 'vcpus', 'memoryMiB', 'diskGiB'] as const;
export const IMAGE_FIELDS = ['name', 'url', 'sha256', 'format'] as const;
export type MachineTypeField = (typeof MACHINE_TYPE_FIELDS)[number];
export type ImageField = (typeof IMAGE_FIELDS)[number];

/** One problem of an edit: a config issue (path first), and the form field it belongs under, if one. */
export interface EditIssue extends ConfigIssue {
  field?: MachineTypeField | ImageField;
}

/**
 * A candidate edit. Save candidates are what a form holds (numbers may still be text, a
 * field may be empty): the check reports that as it would in a file.
 */
export type CatalogEdit =
  | { op: 'machineType:save'; entry: Record<string, unknown> }
  | { op: 'machineType:remove'; name: string }
  | { op: 'image:save'; entry: Record<string, unknown> }
  | { op: 'image:remove'; name: string }
  | { op: 'defaults:set'; machineType?: string | undefined; image?: string | undefined };

/** An edit that cannot be applied; `issues` says why, path first. */
export class CatalogEditError extends Error {
  override readonly name = 'CatalogEditError';
  constructor(
    what: string,
    readonly issues: EditIssue[],
  ) {
    super(`${what}: ${issues.map(formatIssue).join('; ')}`);
  }
}

type MapKey = 'machineTypes' | 'images';
const NOUN: Record<MapKey, string> = { machineTypes: 'machine type', images: 'image' };
const DEFAULT_FIELD: Record<MapKey, 'machineType' | 'image'> = { machineTypes: 'machineType', images: 'image' };

/** `kvm.<key>.<name>`, or `kvm.<key>.<new>` while the name is still empty. */
function entryPath(key: MapKey, name: unknown): string {
  return typeof name === 'string' && name !== '' ? formatPath(['kvm', key, name]) : `kvm.${key}.<new>`;
}

const known = (names: string[]) => (names.length ? `known: ${names.join(', ')}` : 'none is defined');

function saveIssues(kvm: KVMConfig, key: MapKey, entry: Record<string, unknown>): EditIssue[] {
  const schema = key === 'machineTypes' ? MachineTypeSaveSchema : ImageSaveSchema;
  const issues: EditIssue[] = [];
  const base = entryPath(key, entry.name);
  const parsed = schema.safeParse(entry, { error: configErrorMap });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (field === 'name' || field === 'previousName') {
        issues.push({
          path: base,
          field: 'name',
          message: `${field === 'name' ? 'name' : 'previous name'} ${issue.message}`,
        });
      } else if (typeof field === 'string') {
        issues.push({
          path: `${base}.${field}`,
          field: field as NonNullable<EditIssue['field']>,
          message: issue.message,
        });
      } else {
        issues.push({ path: base, message: issue.message });
      }
    }
  }
  const map = (kvm[key] ?? {}) as Record<string, unknown>;
  const names = Object.keys(map);
  const name = entry.name;
  const previous = entry.previousName;
  if (typeof previous === 'string' && !Object.hasOwn(map, previous)) {
    issues.push({
      path: entryPath(key, previous),
      message: `no ${NOUN[key]} named ${JSON.stringify(previous)} any more (${known(names)}): it was renamed or removed meanwhile; reload the view`,
    });
  }
  if (typeof name === 'string' && name !== previous && Object.hasOwn(map, name)) {
    issues.push({
      path: base,
      field: 'name',
      message: `a ${NOUN[key]} named ${JSON.stringify(name)} already exists: choose another name, or edit that one`,
    });
  }
  return issues;
}

function removeIssues(kvm: KVMConfig, key: MapKey, name: string): EditIssue[] {
  const map = (kvm[key] ?? {}) as Record<string, unknown>;
  const names = Object.keys(map);
  if (!Object.hasOwn(map, name))
    return [{ path: entryPath(key, name), message: `no ${NOUN[key]} named ${JSON.stringify(name)} (${known(names)})` }];
  const issues: EditIssue[] = [];
  const field = DEFAULT_FIELD[key];
  if (kvm.defaults?.[field] === name) {
    issues.push({
      path: `kvm.defaults.${field}`,
      message: `${JSON.stringify(name)} is the default ${NOUN[key]}: make another one the default first`,
    });
  }
  if (key === 'machineTypes' && names.length === 1) {
    issues.push({
      path: 'kvm.machineTypes',
      message: `at least one machine type is required: add another before removing ${JSON.stringify(name)}`,
    });
  }
  return issues;
}

function defaultsIssues(
  kvm: KVMConfig,
  edit: { machineType?: string | undefined; image?: string | undefined },
): EditIssue[] {
  const issues: EditIssue[] = [];
  if (edit.machineType === undefined && edit.image === undefined)
    issues.push({ path: 'kvm.defaults', message: 'name a machineType or an image to make the default' });
  for (const key of ['machineTypes', 'images'] as const) {
    const value = edit[DEFAULT_FIELD[key]];
    const names = Object.keys(kvm[key] ?? {});
    if (value !== undefined && !names.includes(value))
      issues.push({
        path: `kvm.defaults.${DEFAULT_FIELD[key]}`,
        message: `no ${NOUN[key]} named ${JSON.stringify(value)} (${known(names)})`,
      });
  }
  return issues;
}

/**
 * Every problem of `edit` against `config`, path first; empty when it can be applied.
 * Covers the entry's fields (the config's own schema and wording), duplicate names, a
 * rename whose old name is gone, removing the default or the last machine type, and
 * defaults that name nothing. Pure: the renderer calls it on every keystroke.
 */
export function catalogEditIssues(config: ProviderConfig | undefined, edit: CatalogEdit): EditIssue[] {
  const kvm = config?.kvm;
  if (!config || config.type !== 'kvm' || !kvm)
    return [{ path: 'kvm', message: 'the config has no usable kvm block: fix the config file (Config view) first' }];
  switch (edit.op) {
    case 'machineType:save':
      return saveIssues(kvm, 'machineTypes', edit.entry);
    case 'image:save':
      return saveIssues(kvm, 'images', edit.entry);
    case 'machineType:remove':
      return removeIssues(kvm, 'machineTypes', edit.name);
    case 'image:remove':
      return removeIssues(kvm, 'images', edit.name);
    case 'defaults:set':
      return defaultsIssues(kvm, edit);
  }
}

/** Replaces (or appends) one map entry, keeping the others in their order: a rename stays where it was. */
function putEntry<T>(map: Record<string, T>, previous: string | undefined, name: string, value: T): Record<string, T> {
  const out: Record<string, T> = {};
  let placed = false;
  for (const [k, v] of Object.entries(map)) {
    if (k === (previous ?? name)) {
      out[name] = value;
      placed = true;
    } else if (k !== name) out[k] = v;
  }
  if (!placed) out[name] = value;
  return out;
}

function without<T>(map: Record<string, T>, name: string): Record<string, T> {
  return Object.fromEntries(Object.entries(map).filter(([k]) => k !== name));
}

function describe(edit: CatalogEdit): string {
  switch (edit.op) {
    case 'machineType:save':
      return `the machine type ${JSON.stringify(edit.entry.name)} cannot be saved`;
    case 'image:save':
      return `the image ${JSON.stringify(edit.entry.name)} cannot be saved`;
    case 'machineType:remove':
      return `the machine type ${JSON.stringify(edit.name)} cannot be removed`;
    case 'image:remove':
      return `the image ${JSON.stringify(edit.name)} cannot be removed`;
    case 'defaults:set':
      return 'the defaults cannot be set';
  }
}

/**
 * `config` with `edit` applied (a new object; `config` is not changed). A rename that
 * names a default moves the default with it. Throws {@link CatalogEditError} when
 * {@link catalogEditIssues} finds anything.
 */
export function applyCatalogEdit(config: ProviderConfig, edit: CatalogEdit): ProviderConfig {
  const issues = catalogEditIssues(config, edit);
  if (issues.length) throw new CatalogEditError(describe(edit), issues);
  const next = structuredClone(config);
  const kvm = next.kvm!;
  switch (edit.op) {
    case 'machineType:save': {
      const e = MachineTypeSaveSchema.parse(edit.entry);
      kvm.machineTypes = putEntry(kvm.machineTypes, e.previousName, e.name, {
        vcpus: e.vcpus,
        memoryMiB: e.memoryMiB,
        diskGiB: e.diskGiB,
      });
      if (e.previousName !== undefined && kvm.defaults?.machineType === e.previousName)
        kvm.defaults.machineType = e.name;
      break;
    }
    case 'image:save': {
      const e = ImageSaveSchema.parse(edit.entry);
      kvm.images = putEntry(kvm.images ?? {}, e.previousName, e.name, {
        url: e.url,
        sha256: e.sha256,
        format: e.format,
      });
      if (e.previousName !== undefined && kvm.defaults?.image === e.previousName) kvm.defaults.image = e.name;
      break;
    }
    case 'machineType:remove':
      kvm.machineTypes = without(kvm.machineTypes, edit.name);
      break;
    case 'image:remove':
      kvm.images = without(kvm.images ?? {}, edit.name);
      break;
    case 'defaults:set':
      kvm.defaults = {
        ...kvm.defaults,
        ...(edit.machineType !== undefined ? { machineType: edit.machineType } : {}),
        ...(edit.image !== undefined ? { image: edit.image } : {}),
      };
      break;
  }
  return next;
}
