/**
 * The Add image form: the catalog's entry form, with the publisher's checksum file read
 * for the person. A well-known image (the built-in list) fills the fields and reads its
 * checksum file at once; "Read checksum file" does it for a typed URL. A SHA-256 found
 * fills the field; a SHA-512 only (Debian) makes Save download the image once
 * (`images:verifySha512`, a task shown here), check it, and save the SHA-256 it learned.
 * What the file lists is always shown, with the plain fact that its signature was not
 * checked.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { PublishedDigestView } from '../../shared/image-lookup.js';
import { ImageVerifiedSchema } from '../../shared/image-lookup.js';
import { KNOWN_IMAGES } from '../../shared/known-images.js';
import type { Task } from '../../shared/tasks.js';
import { backend } from '../backend.js';
import { errorMessage } from '../format.js';
import { isActive, useTasksStore } from '../stores/tasks-store.js';
import { EntryForm, type FieldSpec } from './CatalogEntryForm.js';
import { PullProgress } from './ImagePull.js';

type Lookup =
  | { state: 'idle' }
  | { state: 'reading' }
  | { state: 'found'; found: PublishedDigestView; url: string }
  | { state: 'error'; message: string };

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
  const [checksumsUrl, setChecksumsUrl] = useState<{ url: string; sums: string }>();
  const [lookup, setLookup] = useState<Lookup>({ state: 'idle' });
  const [taskId, setTaskId] = useState<string>();
  const task = useTasksStore((s) => (taskId ? s.tasks[taskId] : undefined));
  const url = (draft.url ?? '').trim();

  async function read(imageUrl: string, sums?: string) {
    setLookup({ state: 'reading' });
    try {
      const found = await backend().images.lookup({ url: imageUrl, ...(sums ? { checksumsUrl: sums } : {}) });
      setLookup({ state: 'found', found, url: imageUrl });
      if (found.algorithm === 'sha256') setDraft((d) => ({ ...d, sha256: found.digest }));
    } catch (err) {
      setLookup({ state: 'error', message: errorMessage(err) });
    }
  }

  function choose(name: string) {
    const known = KNOWN_IMAGES.find((k) => k.name === name);
    if (!known) return;
    setDraft((d) => ({ ...d, name: (d.name ?? '').trim() === '' || KNOWN_IMAGES.some((k) => k.name === d.name) ? known.name : d.name!, url: known.url, format: known.format, sha256: '' }));
    setChecksumsUrl({ url: known.url, sums: known.checksumsUrl });
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
    const api = backend();
    const started = await api.images.verifySha512({ name: String(entry.name), url: String(entry.url), sha512: pending.digest, format: entry.format === 'raw' ? 'raw' : 'qcow2' });
    setTaskId(started.taskId);
    const done = await taskEnded(started.taskId);
    if (done.state !== 'succeeded') throw new Error(done.error?.message ?? done.message ?? `the check was ${done.state}`);
    const { sha256 } = ImageVerifiedSchema.parse(done.result);
    setDraft((d) => ({ ...d, sha256 }));
    return { ...entry, sha256 };
  }

  const sumsFor = checksumsUrl?.url === url ? checksumsUrl.sums : undefined;
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
      <button type="button" className="small" disabled={url === '' || lookup.state === 'reading'} onClick={() => void read(url, sumsFor)}>
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
      onDraft={setDraft}
      top={top}
      {...(pending ? { filledBySave: { sha256: PENDING_SHA256 }, beforeSave: verifyFirst } : {})}
    />
  );
}

/** What the checksum file lists, said plainly (and that its signature was not checked). */
function Found({ lookup, url, pending }: { lookup: Lookup; url: string; pending: boolean }) {
  if (lookup.state === 'idle') return null;
  if (lookup.state === 'reading') return <p className="meta published-status" role="status">Reading the publisher&apos;s checksum file…</p>;
  if (lookup.state === 'error') {
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
      <p className="hint">Not signature-checked: the checksum file is as trustworthy as the HTTPS connection it came over.</p>
    </div>
  );
}
