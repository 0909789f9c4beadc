/**
 * The Add image form: the catalog's entry form, with the publisher's checksum file read
 * for the person. A well-known image (the built-in list) fills the fields and reads its
 * checksum file at once (and shows it in the Checksum file field); "Read checksum file"
 * does it for a typed URL, looking beside it unless that optional field names the file (a
 * publisher that keeps it elsewhere, or a mirror; `images:lookup`'s `checksumsUrl`). A
 * SHA-256 found fills the field; a SHA-512 only (Debian) makes Save download the image
 * once (`images:verifySha512`, a task shown here), check it, and save the SHA-256 it learned.
 * What the file lists is always shown, with what checking its signature found: verified
 * (gpgv, with a key of the publisher's keyrings or the app's keyring directory), or why
 * not. A BAD signature is an error of the lookup: no digest is shown or filled in.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { NEW_IMAGE_FORM } from '../../shared/catalog-entry-form.js';
import {
  type ChecksumLookup,
  type ImageAddForm as Form,
  NEW_IMAGE_ADD_FORM,
  afterFailedLookup,
  afterLookup,
  checkImageAddForm,
  chooseKnownImage,
  editImageAdd,
  knownImageOf,
} from '../../shared/image-add-form.js';
import type { PublishedDigestView } from '../../shared/image-lookup.js';
import { KNOWN_IMAGES } from '../../shared/known-images.js';
import { signatureParts } from '../../shared/signature.js';
import { errorMessage } from '../format.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { learnSha256, lookupImage } from '../stores/catalog-actions.js';
import { isActive, useTasksStore } from '../stores/tasks-store.js';
import { EntryForm } from './CatalogEntryForm.js';
import { Field } from './Field.js';
import { PullProgress } from './ImagePull.js';

/**
 * The well-known images not in the config yet, one button each: a click opens Add image
 * with that image chosen and its checksum file read, so adding Debian's image is two
 * clicks (this one and Save).
 */
export function QuickAdd({
  urls,
  disabled,
  onAdd,
}: {
  urls: readonly string[];
  disabled: boolean;
  onAdd: (known: string) => void;
}) {
  const missing = KNOWN_IMAGES.filter((k) => !urls.includes(k.url));
  if (missing.length === 0) return null;
  return (
    <div className="quick-add" role="group" aria-label="Add a well-known image">
      <span className="meta">Add a well-known image:</span>
      {missing.map((k) => (
        <button
          key={k.name}
          type="button"
          className="small"
          disabled={disabled}
          aria-label={`Add ${k.title}`}
          onClick={() => onAdd(k.name)}
        >
          {k.title}
        </button>
      ))}
    </div>
  );
}

/** `known`: a well-known image's name to choose as the form opens (from {@link QuickAdd}). */
export function ImageAddForm({
  colSpan,
  onDone,
  known,
}: {
  colSpan: number;
  onDone: (saved?: string) => void;
  known?: string | undefined;
}) {
  const id = useId();
  const config = useAppConfigStore((s) => s.state?.config);
  const [form, setForm] = useState<Form>(NEW_IMAGE_ADD_FORM);
  const [lookup, setLookup] = useState<ChecksumLookup>({ state: 'idle' });
  const [taskId, setTaskId] = useState<string>();
  const task = useTasksStore((s) => (taskId ? s.tasks[taskId] : undefined));
  const check = checkImageAddForm(config, form, lookup);
  const url = form.url.trim();
  const named = form.checksums.trim();

  async function read(imageUrl: string, sums: string) {
    const before = lookup;
    setLookup({ state: 'reading' });
    try {
      const found = await lookupImage({ url: imageUrl, ...(sums ? { checksumsUrl: sums } : {}) });
      setLookup({ state: 'found', found, url: imageUrl });
      setForm((f) => afterLookup(f, found));
    } catch (err) {
      setLookup({ state: 'error', message: errorMessage(err), sums });
      setForm((f) => afterFailedLookup(f, before));
    }
  }

  function choose(name: string) {
    const chosen = chooseKnownImage(form, name);
    if (!chosen) return;
    setForm(chosen);
    void read(chosen.url, chosen.checksums);
  }

  // Opened by a quick-add button: that image is chosen once, as if picked in the list.
  const chosenOnOpen = useRef(false);
  useEffect(() => {
    if (known === undefined || chosenOnOpen.current) return;
    chosenOnOpen.current = true;
    choose(known);
  });

  const { pending } = check;
  async function verifyFirst(entry: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!pending) return entry;
    const sha256 = await learnSha256(
      {
        name: String(entry.name),
        url: String(entry.url),
        sha512: pending.digest,
        format: entry.format === 'raw' ? 'raw' : 'qcow2',
      },
      setTaskId,
    );
    setForm((f) => ({ ...f, sha256 }));
    return { ...entry, sha256 };
  }

  const top = (
    <div className="image-published">
      <Field id={`${id}-known`} label="Well-known image" className="entry-field">
        {(c) => (
          <select {...c} value={knownImageOf(form)} onChange={(e) => choose(e.target.value)}>
            <option value="">Type a URL below, or choose…</option>
            {KNOWN_IMAGES.map((k) => (
              <option key={k.name} value={k.name}>
                {k.title}
              </option>
            ))}
          </select>
        )}
      </Field>
      {/* A failed read of the file named here is said under this field, as an alert (an answer to the button); a typing mistake is only described. */}
      <Field
        id={`${id}-sums`}
        label="Checksum file"
        error={check.problems.checksums}
        announce={check.checksumsRead}
        className="entry-field entry-field-wide"
      >
        {(c) => (
          <input
            {...c}
            type="text"
            value={form.checksums}
            placeholder="Optional: looked for beside the image URL by default"
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => setForm((f) => editImageAdd(f, { checksums: e.target.value }))}
            onKeyDown={(e) => {
              // Enter here reads the file it names, as the button beside it does; in the form's own fields it saves.
              if (e.key !== 'Enter') return;
              e.preventDefault();
              e.stopPropagation();
              if (check.canRead) void read(url, named);
            }}
          />
        )}
      </Field>
      <button type="button" className="small" disabled={!check.canRead} onClick={() => void read(url, named)}>
        Read checksum file
      </button>
      <Found lookup={lookup} url={url} pending={pending !== undefined} />
      {task && (isActive(task) ? <PullProgress task={task} name={form.name} /> : null)}
    </div>
  );

  return (
    <EntryForm
      kind="image"
      form={form}
      initial={NEW_IMAGE_FORM}
      onField={(field, value) => setForm((f) => editImageAdd(f, { [field]: value }))}
      check={check}
      colSpan={colSpan}
      onDone={onDone}
      top={top}
      beforeSave={pending ? verifyFirst : undefined}
    />
  );
}

/** What the checksum file lists, said plainly, and what checking its signature found. */
function Found({ lookup, url, pending }: { lookup: ChecksumLookup; url: string; pending: boolean }) {
  if (lookup.state === 'idle') return null;
  if (lookup.state === 'reading')
    return (
      <p className="meta published-status" role="status">
        Reading the publisher&apos;s checksum file…
      </p>
    );
  if (lookup.state === 'error') {
    // A checksum file named in the form: its failure is shown under that field instead.
    if (lookup.sums !== '') return null;
    return (
      <p className="error published-status" role="alert">
        No digest found: {lookup.message}
      </p>
    );
  }
  const { found } = lookup;
  const stale = lookup.url !== url;
  return (
    <div className="published-status" role="status">
      <p>
        <span className="url">{found.sumsUrl}</span> lists {found.listedName} with {found.algorithm}{' '}
        <code className="digest-full" aria-label={`${found.algorithm} ${found.digest}`}>
          {found.digest}
        </code>
        {stale && ' (for another URL than the one in the form)'}
      </p>
      {found.algorithm === 'sha512' && pending && (
        <p>Only a SHA-512 is published: Save downloads the image once, checks it, and stores its sha256.</p>
      )}
      <Signature found={found} />
    </div>
  );
}

/** "Signature verified: …" or "Signature not verified: <why; what to do>". */
function Signature({ found }: { found: PublishedDigestView }) {
  const { verified, detail } = signatureParts(found.signature);
  return (
    <p className={verified ? undefined : 'hint'}>
      <strong>{verified ? 'Signature verified' : 'Signature not verified'}</strong>: {detail}.
    </p>
  );
}
