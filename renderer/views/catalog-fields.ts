/**
 * The catalog forms' field tables: each field's label, control and hint, keyed by the
 * kind's fields (shared/catalog-entry-form.ts), so a field added to an entry cannot go
 * without its label. The forms show them in the kind's field order.
 */
import type { CatalogEntryFields, CatalogEntryKind } from '../../shared/catalog-entry-form.js';
import { DISK_FORMATS } from '../../shared/config.js';

/** How one field of a catalog entry is shown. */
export interface EntryFieldSpec {
  label: string;
  /** `number`: typed as text with the numeric keyboard (the check names what is not a number). */
  kind: 'text' | 'number' | 'select';
  options?: readonly string[];
  hint?: string;
  /** Wider input (URLs, digests). */
  wide?: boolean;
}

export const ENTRY_FIELD_TABLES: {
  readonly [K in CatalogEntryKind]: { readonly [F in CatalogEntryFields[K]]: EntryFieldSpec };
} = {
  machineType: {
    name: { label: 'Name', kind: 'text' },
    vcpus: { label: 'vCPUs', kind: 'number' },
    memoryMiB: { label: 'Memory (MiB)', kind: 'number' },
    diskGiB: { label: 'Disk (GiB)', kind: 'number' },
  },
  image: {
    name: { label: 'Name', kind: 'text' },
    url: { label: 'URL', kind: 'text', wide: true, hint: 'https://, http:// or file:// (a file on this machine)' },
    sha256: {
      label: 'sha256',
      kind: 'text',
      wide: true,
      hint: "From the publisher's checksum file (Read checksum file fills it): the pull is checked against it",
    },
    format: { label: 'Format', kind: 'select', options: DISK_FORMATS },
  },
};
