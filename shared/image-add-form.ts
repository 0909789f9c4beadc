/**
 * The Add image form's one object: the image entry's fields (catalog-entry-form.ts) plus
 * the publisher's checksum file, how the form changes as a well-known image is chosen or a
 * checksum file is read, and its problems by field: the entry's in the words of the save's
 * check, the checksum file's in the words of `images:lookup` (its schema's bound, the URL
 * schemes the config takes), and a read's failure under the field that named the file.
 */
import { type CatalogEntryCheck, type ImageForm, NEW_IMAGE_FORM, checkCatalogEntry } from './catalog-entry-form.js';
import type { ImageField } from './catalog-edit.js';
import { type ProviderConfig, URL_SCHEMES } from './config.js';
import { configErrorMap } from './config-issues.js';
import { ImageLookupSchema, type PublishedDigestView } from './image-lookup.js';
import { KNOWN_IMAGES } from './known-images.js';

export interface ImageAddForm extends ImageForm {
  /** The Checksum file field: the publisher's checksum file when it is not beside the image ('' = look beside it). */
  checksums: string;
  /**
   * The well-known image URL whose checksum file filled `checksums`: typing another image
   * URL empties the field again, so a stale file is never read for it.
   */
  checksumsFor?: string;
}

export type ImageAddField = ImageField | 'checksums';

export const NEW_IMAGE_ADD_FORM: ImageAddForm = { ...NEW_IMAGE_FORM, checksums: '' };

/** What reading the checksum file gave. `sums`: the file the form named for that read ('' when looked for beside the URL). */
export type ChecksumLookup =
  | { state: 'idle' }
  | { state: 'reading' }
  | { state: 'found'; found: PublishedDigestView; url: string }
  | { state: 'error'; message: string; sums: string };

/** "a, b or c". */
const either = (words: readonly string[]): string => `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;

/**
 * What is wrong with the checksum file's URL as typed, in the words the backend would use,
 * or undefined. Empty is fine (look beside the image). A relative one is read relative to
 * the image's URL, as the backend does, so it is checked against that.
 */
export function checksumsUrlProblem(sums: string, imageUrl: string): string | undefined {
  if (sums === '') return undefined;
  const bounded = ImageLookupSchema.shape.checksumsUrl.safeParse(sums, { error: configErrorMap });
  if (!bounded.success) return bounded.error.issues[0]?.message;
  let parsed: URL;
  try {
    parsed = imageUrl === '' ? new URL(sums) : new URL(sums, imageUrl);
  } catch {
    return `${sums} is not a valid URL (${either(URL_SCHEMES.map((s) => `${s}://`))}${imageUrl === '' ? '; a relative one needs the image URL' : ''})`;
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (!(URL_SCHEMES as readonly string[]).includes(scheme))
    return `the scheme ${scheme} is not supported (use ${either(URL_SCHEMES)})`;
  return undefined;
}

/** The well-known image the form's URL is ('' for none): what the Well-known image list shows. */
export const knownImageOf = (form: ImageAddForm): string =>
  KNOWN_IMAGES.find((k) => k.url === form.url.trim())?.name ?? '';

/**
 * The form with a well-known image chosen: its URL, format and checksum file; its name,
 * unless the person typed one of their own; no sha256 until its checksum file is read.
 * Undefined for a name that is not a well-known image.
 */
export function chooseKnownImage(form: ImageAddForm, name: string): ImageAddForm | undefined {
  const known = KNOWN_IMAGES.find((k) => k.name === name);
  if (!known) return undefined;
  const typedName = form.name.trim() !== '' && !KNOWN_IMAGES.some((k) => k.name === form.name);
  return {
    ...form,
    name: typedName ? form.name : known.name,
    url: known.url,
    format: known.format,
    sha256: '',
    checksums: known.checksumsUrl,
    checksumsFor: known.url,
  };
}

/**
 * The form after the person typed in it. A checksum file typed is theirs (no longer a
 * well-known image's); an image URL other than the well-known one drops that image's
 * checksum file.
 */
export function editImageAdd(form: ImageAddForm, patch: Partial<ImageForm> | { checksums: string }): ImageAddForm {
  const { checksumsFor, ...rest } = { ...form, ...patch };
  if ('checksums' in patch) return rest;
  if (checksumsFor !== undefined && rest.url.trim() !== checksumsFor) return { ...rest, checksums: '' };
  return { ...rest, ...(checksumsFor !== undefined ? { checksumsFor } : {}) };
}

/** The form once its checksum file was read: a SHA-256 found fills the field (a SHA-512 cannot: Save learns the SHA-256). */
export const afterLookup = (form: ImageAddForm, found: PublishedDigestView): ImageAddForm =>
  found.algorithm === 'sha256' ? { ...form, sha256: found.digest } : form;

/** The form once a read failed: a digest the read before filled in must not outlive a read that refused it (a BAD signature, say). */
export const afterFailedLookup = (form: ImageAddForm, before: ChecksumLookup): ImageAddForm =>
  before.state === 'found' && form.sha256 === before.found.digest ? { ...form, sha256: '' } : form;

/** The Add image form's problems, and what its buttons may do. */
export interface ImageAddCheck extends CatalogEntryCheck<ImageAddField> {
  /**
   * The SHA-512 Save checks first, when the form rests on one: read for the URL in the
   * form, and no sha256 typed. Save then downloads the image once and stores the SHA-256 it
   * learns; meanwhile the check takes the sha256 as given.
   */
  pending?: PublishedDigestView;
  /** The checksum file's problem is the answer of reading it (announced), not a mistake in its text (only described). */
  checksumsRead: boolean;
  /** "Read checksum file" can be pressed: there is a URL, no read is under way, and the file named (if any) can be read. */
  canRead: boolean;
}

/** Stands in for the sha256 a SHA-512 download will give, so that the form's check can pass. */
const PENDING_SHA256 = '0'.repeat(64);

/**
 * Checks the form: the entry as the save's check would (its `issues` are what keeps Save
 * disabled), and the checksum file field: its text, else the failure of reading the file it
 * names (a failed read of the file beside the URL is the status's to say, not the field's).
 */
export function checkImageAddForm(
  config: ProviderConfig | undefined,
  form: ImageAddForm,
  lookup: ChecksumLookup,
): ImageAddCheck {
  const url = form.url.trim();
  const named = form.checksums.trim();
  const pending =
    lookup.state === 'found' && lookup.found.algorithm === 'sha512' && lookup.url === url && form.sha256.trim() === ''
      ? lookup.found
      : undefined;
  const entry = checkCatalogEntry(config, 'image', form, pending ? { filled: { sha256: PENDING_SHA256 } } : {});
  const typed = checksumsUrlProblem(named, url);
  const read =
    lookup.state === 'error' && lookup.sums !== '' && lookup.sums === named
      ? `No digest found: ${lookup.message}`
      : undefined;
  const checksums = typed ?? read;
  return {
    ...entry,
    problems: { ...entry.problems, ...(checksums !== undefined ? { checksums } : {}) },
    checksumsRead: typed === undefined && read !== undefined,
    canRead: url !== '' && lookup.state !== 'reading' && typed === undefined,
    ...(pending ? { pending } : {}),
  };
}
