/**
 * The catalog's entry forms (Images & machine types, edited in place): one form object per
 * entry, a string per field as typed, and its problems grouped by field in the words of the
 * check the backend runs before it saves (catalog-edit.ts, over the config's own entry
 * schemas), so the messages under the fields are the ones a save would get.
 */
import {
  type EditIssue,
  IMAGE_FIELDS,
  type ImageField,
  ImageSaveSchema,
  MACHINE_TYPE_FIELDS,
  type MachineTypeField,
  MachineTypeSaveSchema,
  catalogEditIssues,
} from './catalog-edit.js';
import { type ProviderConfig, formatIssue } from './config.js';
import type { ImageView, MachineTypeView } from './images-view.js';

/** A catalog entry's kind, as the forms and the view name it. */
export type CatalogEntryKind = 'machineType' | 'image';

/** The fields of each kind. */
export interface CatalogEntryFields {
  machineType: MachineTypeField;
  image: ImageField;
}

/** A form of one entry: what the person typed, one string per field. */
export type CatalogEntryForm<K extends CatalogEntryKind> = Record<CatalogEntryFields[K], string>;
export type MachineTypeForm = CatalogEntryForm<'machineType'>;
export type ImageForm = CatalogEntryForm<'image'>;

/** Each kind's fields, in the order the forms show them. */
export const ENTRY_FIELDS: { readonly [K in CatalogEntryKind]: readonly CatalogEntryFields[K][] } = {
  machineType: MACHINE_TYPE_FIELDS,
  image: IMAGE_FIELDS,
};

/** What Add opens with: a small machine type, an image to be named and pointed at. */
export const NEW_MACHINE_TYPE_FORM: MachineTypeForm = { name: '', vcpus: '1', memoryMiB: '512', diskGiB: '10' };
export const NEW_IMAGE_FORM: ImageForm = { name: '', url: '', sha256: '', format: 'qcow2' };

/** The form of a listed machine type (Edit). */
export const machineTypeForm = (
  m: Pick<MachineTypeView, 'name' | 'vcpus' | 'memoryMiB' | 'diskGiB'>,
): MachineTypeForm => ({
  name: m.name,
  vcpus: String(m.vcpus),
  memoryMiB: String(m.memoryMiB),
  diskGiB: String(m.diskGiB),
});

/** The form of a listed image (Edit). */
export const imageForm = (i: Pick<ImageView, 'name' | 'url' | 'sha256' | 'format'>): ImageForm => ({
  name: i.name,
  url: i.url,
  sha256: i.sha256,
  format: i.format,
});

const SAVE_SCHEMA = { machineType: MachineTypeSaveSchema, image: ImageSaveSchema } as const;

/** The fields the save schema takes as numbers (a machine type's sizes): read from the schema, not listed again. */
const NUMBER_FIELDS: ReadonlySet<string> = new Set(
  Object.values(SAVE_SCHEMA).flatMap((schema) =>
    Object.entries(schema.shape)
      .filter(([, field]) => field.type === 'number')
      .map(([key]) => key),
  ),
);

/**
 * The entry a form makes, as the check and the save channel take it: text trimmed, a
 * number field parsed when it is a number. An empty number field is left out (the check
 * says "required"); text that is not a number is passed as typed, so the config's message
 * names it (`expected a number, got the text "lots"`).
 */
export function formEntry<K extends CatalogEntryKind>(
  kind: K,
  form: CatalogEntryForm<K>,
  previousName?: string,
): Record<string, unknown> {
  const entry: Record<string, unknown> = previousName !== undefined ? { previousName } : {};
  const typed = form as Record<string, string>;
  for (const field of ENTRY_FIELDS[kind]) {
    const text = (typed[field] ?? '').trim();
    if (!NUMBER_FIELDS.has(field)) entry[field] = text;
    else entry[field] = text === '' ? undefined : Number.isFinite(Number(text)) ? Number(text) : text;
  }
  return entry;
}

/** A catalog form's problems: by field, for the whole entry, and all of them in order. */
export interface CatalogEntryCheck<F extends string> {
  /** Each field's problems, path first as a save would give them, joined with "; ". */
  problems: Partial<Record<F, string>>;
  /** Problems of the entry as a whole (a rename whose old name is gone, a config without a kvm block). */
  general: string[];
  /** Every problem, path first, in the check's order; empty when the entry can be saved. */
  issues: string[];
  /** What Save sends: the form's entry (with `previousName` when editing). */
  entry: Record<string, unknown>;
}

export interface CatalogEntryOptions<K extends CatalogEntryKind> {
  /** The entry's name in the config when editing; absent when adding. */
  previousName?: string | undefined;
  /**
   * Values the check takes for fields left empty, because Save fills them before it sends
   * (the sha256 a download learns for an image published with a SHA-512 only). The entry
   * sent keeps them empty.
   */
  filled?: Partial<CatalogEntryForm<K>> | undefined;
}

/** Checks a form against the config as the backend's save would, and groups the problems by field. */
export function checkCatalogEntry<K extends CatalogEntryKind>(
  config: ProviderConfig | undefined,
  kind: K,
  form: CatalogEntryForm<K>,
  options: CatalogEntryOptions<K> = {},
): CatalogEntryCheck<CatalogEntryFields[K]> {
  const typed = form as Record<string, string>;
  const filled = Object.fromEntries(
    Object.entries(options.filled ?? {}).filter(([field]) => (typed[field] ?? '').trim() === ''),
  );
  const checked = formEntry(kind, { ...form, ...filled }, options.previousName);
  const found = catalogEditIssues(
    config,
    kind === 'machineType' ? { op: 'machineType:save', entry: checked } : { op: 'image:save', entry: checked },
  );
  const byField = new Map<string, EditIssue[]>();
  for (const issue of found)
    if (issue.field !== undefined) byField.set(issue.field, [...(byField.get(issue.field) ?? []), issue]);
  const problems: Partial<Record<string, string>> = Object.fromEntries(
    [...byField].map(([field, issues]) => [field, issues.map(formatIssue).join('; ')]),
  );
  return {
    problems: problems as Partial<Record<CatalogEntryFields[K], string>>,
    general: found.filter((i) => i.field === undefined).map(formatIssue),
    issues: found.map(formatIssue),
    entry: formEntry(kind, form, options.previousName),
  };
}
