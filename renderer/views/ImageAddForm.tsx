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
import type { PublishedDigestView } from '../../shared/image-lookup.js';
import { ImageLookupSchema, ImageVerifiedSchema } from '../../shared/image-lookup.js';
import { KNOWN_IMAGES } from '../../shared/known-images.js';
import { signatureParts } from '../../shared/signature.js';
import type { Task } from '../../shared/tasks.js';
import { errorMessage } from '../format.js';
import { lookupImage, verifySha512 } from '../stores/catalog-actions.js';
import { isActive, useTasksStore } from '../stores/tasks-store.js';
import { EntryForm, type FieldSpec } from './CatalogEntryForm.js';
import { PullProgress } from './ImagePull.js';

/** `sums`: the checksum file named in the form for this lookup ('' when looked for beside the URL). */
type Lookup =
  | { state: 'idle' }
  | { state: 'reading' }
  | { state: 'found'; found: PublishedDigestView; url: string }
  | { state: 'error'; message: string; sums: string };

/** The channel's bound on a checksum file's URL (shared/image-lookup.ts). */
const MAX_SUMS_URL = ImageLookupSchema.shape.checksumsUrl.unwrap().maxLength ?? 2048;

/**
 * What is wrong with the checksum file's URL as typed, in the words the backend would use,
 * or undefined. Empty is fine (look beside the image). A relative one is read relative to
 * the image's URL, as the backend does, so it is checked against that.
 */
function checksumsUrlIssue(sums: string, imageUrl: string): string | undefined {
  if (sums === '') return undefined;
  if (sums.length > MAX_SUMS_URL) return `must be at most ${MAX_SUMS_URL} characters`;
  let parsed: URL;
  try {
    parsed = imageUrl === '' ? new URL(sums) : new URL(sums, imageUrl);
  } catch {
    return `${sums} is not a valid URL (https://, http:// or file://${imageUrl === '' ? '; a relative one needs the image URL' : ''})`;
  }
  if (!['http:', 'https:', 'file:'].includes(parsed.protocol)) return `the scheme ${parsed.protocol.slice(0, -1)} is not supported (use https, http or file)`;
  return undefined;
}

/** Stands in for the sha256 a SHA-512 download will give, so that the form's check can pass. */
const PENDING_SHA256 = '0'.repeat(64);

/** Resolves once the task has ended, from the tasks store (fed by task:update). */
function taskEnded(id: string): Promise<Task> {
  return new Promise((resolve) => {
    const check = (tasks: Record<string, Task>): boolean => {
      const t = tasks[id];
      if (!t || isActive(t)) return false;
      resolve(t);
      return true;
    };
    if (check(useTasksStore.getState().tasks)) return;
    const stop = useTasksStore.subscribe((s) => {
      if (check(s.tasks)) stop();
    });
  });
}

/**
 * The well-known images not in the config yet, one button each: a click opens Add image
 * with that image chosen and its checksum file read, so adding Debian's image is two
 * clicks (this one and Save).
 */
export function QuickAdd({ urls, disabled, onAdd }: { urls: readonly string[]; disabled: boolean; onAdd: (known: string) => void }) {
  const missing = KNOWN_IMAGES.filter((k) => !urls.includes(k.url));
  if (missing.length === 0) return null;
  return (
    <div className="quick-add" role="group" aria-label="Add a well-known image">
      <span className="meta">Add a well-known image:</span>
      {missing.map((k) => (
        <button key={k.name} type="button" className="small" disabled={disabled} aria-label={`Add ${k.title}`} onClick={() => onAdd(k.name)}>
          {k.title}
        </button>
      ))}
    </div>
  );
}

/** `known`: a well-known image's name to choose as the form opens (from {@link QuickAdd}). */
export function ImageAddForm({ fields, initial, colSpan, onDone, known }: { fields: readonly FieldSpec[]; initial: Record<string, string>; colSpan: number; onDone: (saved?: string) => void; known?: string }) {
  const id = useId();
  const [draft, setDraft] = useState(initial);
  // The checksum file field. When a well-known image filled it, `sumsFor` is that image's
  // URL: typing another image URL empties it again, so a stale file is never read for it.
  const [sums, setSums] = useState('');
  const [sumsFor, setSumsFor] = useState<string>();
  const [lookup, setLookup] = useState<Lookup>({ state: 'idle' });
  const [taskId, setTaskId] = useState<string>();
  const task = useTasksStore((s) => (taskId ? s.tasks[taskId] : undefined));
  const url = (draft.url ?? '').trim();

  async function read(imageUrl: string, named: string) {
    const before = lookup;
    setLookup({ state: 'reading' });
    try {
      const found = await lookupImage({ url: imageUrl, ...(named ? { checksumsUrl: named } : {}) });
      setLookup({ state: 'found', found, url: imageUrl });
      if (found.algorithm === 'sha256') setDraft((d) => ({ ...d, sha256: found.digest }));
    } catch (err) {
      setLookup({ state: 'error', message: errorMessage(err), sums: named });
      // A digest an earlier read filled in must not outlive a read that refused it (a BAD signature, say).
      if (before.state === 'found') setDraft((d) => (d.sha256 === before.found.digest ? { ...d, sha256: '' } : d));
    }
  }

  function choose(name: string) {
    const known = KNOWN_IMAGES.find((k) => k.name === name);
    if (!known) return;
    setDraft((d) => ({ ...d, name: (d.name ?? '').trim() === '' || KNOWN_IMAGES.some((k) => k.name === d.name) ? known.name : d.name!, url: known.url, format: known.format, sha256: '' }));
    setSums(known.checksumsUrl);
    setSumsFor(known.url);
    void read(known.url, known.checksumsUrl);
  }

  // Opened by a quick-add button: that image is chosen once, as if picked in the list.
  const chosenOnOpen = useRef(false);
  useEffect(() => {
    if (known === undefined || chosenOnOpen.current) return;
    chosenOnOpen.current = true;
    choose(known);
  });

  // The SHA-512 applies to the URL it was read for, and only while no sha256 was typed.
  const pending = lookup.state === 'found' && lookup.found.algorithm === 'sha512' && lookup.url === url && (draft.sha256 ?? '').trim() === '' ? lookup.found : undefined;

  async function verifyFirst(entry: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!pending) return entry;
    const started = await verifySha512({ name: String(entry.name), url: String(entry.url), sha512: pending.digest, format: entry.format === 'raw' ? 'raw' : 'qcow2' });
    setTaskId(started.taskId);
    const done = await taskEnded(started.taskId);
    if (done.state !== 'succeeded') throw new Error(done.error?.message ?? done.message ?? `the check was ${done.state}`);
    const { sha256 } = ImageVerifiedSchema.parse(done.result);
    setDraft((d) => ({ ...d, sha256 }));
    return { ...entry, sha256 };
  }

  /** The form's own edits (EntryForm's fields): a new image URL drops a well-known image's checksum file. */
  function edit(update: (d: Record<string, string>) => Record<string, string>) {
    const next = update(draft);
    setDraft(next);
    if (sumsFor !== undefined && (next.url ?? '').trim() !== sumsFor) {
      setSums('');
      setSumsFor(undefined);
    }
  }

  const named = sums.trim();
  const sumsIssue = checksumsUrlIssue(named, url);
  // A failed read of the file named here is said under this field; one beside the URL, in the status below.
  const sumsError = sumsIssue ?? (lookup.state === 'error' && lookup.sums !== '' && lookup.sums === named ? `No digest found: ${lookup.message}` : undefined);
  const sumsId = `${id}-sums`;
  const top = (
    <div className="image-published">
      <div className="field entry-field">
        <label htmlFor={`${id}-known`}>Well-known image</label>
        <select id={`${id}-known`} value={KNOWN_IMAGES.find((k) => k.url === url)?.name ?? ''} onChange={(e) => choose(e.target.value)}>
          <option value="">Type a URL below, or choose…</option>
          {KNOWN_IMAGES.map((k) => (
            <option key={k.name} value={k.name}>
              {k.title}
            </option>
          ))}
        </select>
      </div>
      <div className="field entry-field entry-field-wide">
        <label htmlFor={sumsId}>Checksum file</label>
        <input
          id={sumsId}
          type="text"
          value={sums}
          placeholder="Optional: looked for beside the image URL by default"
          spellCheck={false}
          autoComplete="off"
          aria-invalid={sumsError ? true : undefined}
          aria-describedby={sumsError ? `${sumsId}-error` : undefined}
          onChange={(e) => {
            setSums(e.target.value);
            setSumsFor(undefined);
          }}
          onKeyDown={(e) => {
            // Enter here reads the file it names, as the button beside it does; in the form's own fields it saves.
            if (e.key !== 'Enter') return;
            e.preventDefault();
            e.stopPropagation();
            if (url !== '' && lookup.state !== 'reading' && sumsIssue === undefined) void read(url, named);
          }}
        />
        {sumsError && (
          // An alert when it comes from reading the file (an answer to the button); a typing mistake is only described.
          <span className="field-error" id={`${sumsId}-error`} role={sumsIssue ? undefined : 'alert'}>
            {sumsError}
          </span>
        )}
      </div>
      <button type="button" className="small" disabled={url === '' || lookup.state === 'reading' || sumsIssue !== undefined} onClick={() => void read(url, named)}>
        Read checksum file
      </button>
      <Found lookup={lookup} url={url} pending={pending !== undefined} />
      {task && (isActive(task) ? <PullProgress task={task} name={String(draft.name)} /> : null)}
    </div>
  );

  return (
    <EntryForm
      noun="image"
      op="image:save"
      fields={fields}
      initial={initial}
      colSpan={colSpan}
      onDone={onDone}
      draft={draft}
      onDraft={edit}
      top={top}
      {...(pending ? { filledBySave: { sha256: PENDING_SHA256 }, beforeSave: verifyFirst } : {})}
    />
  );
}

/** What the checksum file lists, said plainly, and what checking its signature found. */
function Found({ lookup, url, pending }: { lookup: Lookup; url: string; pending: boolean }) {
  if (lookup.state === 'idle') return null;
  if (lookup.state === 'reading') return <p className="meta published-status" role="status">Reading the publisher&apos;s checksum file…</p>;
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
