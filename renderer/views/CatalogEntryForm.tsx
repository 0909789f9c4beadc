/**
 * The inline editor of one catalog entry (a machine type or an image): a table row whose
 * one cell holds the fields. Every keystroke runs the shared check (shared/catalog-edit.ts,
 * the backend's own), so the messages under the fields are the ones a save would get;
 * Save stays disabled, with the reason beside it, until there is none. Enter saves,
 * Escape cancels.
 */
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { type CatalogEdit, type EditIssue, catalogEditIssues } from '../../shared/catalog-edit.js';
import { formatIssue } from '../../shared/config.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { errorMessage } from '../format.js';
import { saveImage, saveMachineType } from '../stores/catalog-actions.js';
import { isActive, useTasksStore } from '../stores/tasks-store.js';
import { useUiStore } from '../stores/ui-store.js';

export interface FieldSpec {
  key: string;
  label: string;
  kind: 'text' | 'number' | 'select';
  options?: readonly string[];
  hint?: string;
  /** Wider input (URLs, digests). */
  wide?: boolean;
}

/** A form's text as the entry the shared check and the channel take: numbers parsed, text trimmed. */
export function candidate(fields: readonly FieldSpec[], draft: Record<string, string>, previousName?: string): Record<string, unknown> {
  const entry: Record<string, unknown> = previousName !== undefined ? { previousName } : {};
  for (const f of fields) {
    const text = (draft[f.key] ?? '').trim();
    if (f.kind === 'number') {
      // Empty is "required"; text that is not a number is reported as such, in the config's words.
      entry[f.key] = text === '' ? undefined : Number.isFinite(Number(text)) ? Number(text) : text;
    } else {
      entry[f.key] = text;
    }
  }
  return entry;
}

export function EntryForm({
  noun,
  op,
  fields,
  initial,
  previousName,
  colSpan,
  onDone,
  draft: controlled,
  onDraft,
  top,
  filledBySave,
  beforeSave,
}: {
  /** "machine type" or "image", for names and messages. */
  noun: string;
  op: 'machineType:save' | 'image:save';
  fields: readonly FieldSpec[];
  initial: Record<string, string>;
  /** The entry's current name when editing; absent when adding. */
  previousName?: string;
  colSpan: number;
  /** Called when the form closes: with the saved name, or nothing when cancelled. */
  onDone: (saved?: string) => void;
  /** A draft held by the caller (the Add image form fills fields from a checksum file); the form keeps its own when absent. */
  draft?: Record<string, string>;
  onDraft?: (update: (draft: Record<string, string>) => Record<string, string>) => void;
  /** Shown above the fields. */
  top?: ReactNode;
  /** Values the check may take for fields left empty, because `beforeSave` fills them (a sha256 learned by a download). */
  filledBySave?: Record<string, string>;
  /** Runs when Save is pressed, before the save call; answers the entry to save. What it throws is shown as "Not saved". */
  beforeSave?: (entry: Record<string, unknown>) => Promise<Record<string, unknown>>;
}) {
  const base = useId();
  const config = useAppConfigStore((s) => s.state?.config);
  const running = useTasksStore((s) => Object.values(s.tasks).filter(isActive).length);
  const toast = useUiStore((s) => s.toast);
  const [own, setOwn] = useState(initial);
  const draft = controlled ?? own;
  const setDraft = onDraft ?? setOwn;
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);

  const entry = candidate(fields, draft, previousName);
  const filled = Object.fromEntries(Object.entries(filledBySave ?? {}).filter(([k]) => (draft[k] ?? '').trim() === ''));
  const edit: CatalogEdit = { op, entry: candidate(fields, { ...draft, ...filled }, previousName) };
  const issues = catalogEditIssues(config, edit);
  const byField = (key: string): EditIssue[] => issues.filter((i) => i.field === key);
  const general = issues.filter((i) => i.field === undefined);
  const reason = saving
    ? 'Saving…'
    : issues.length
      ? `Cannot save yet: ${formatIssue(issues[0]!)}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`
      : running
        ? `${running} task${running === 1 ? ' is' : 's are'} running: the config can change once ${running === 1 ? 'it has' : 'they have'} finished`
        : undefined;

  async function save() {
    if (reason) return;
    setSaving(true);
    setError(undefined);
    try {
      const toSave = beforeSave ? await beforeSave(entry) : entry;
      // Resolves once the catalog shows the saved entry: onDone puts the focus on its row.
      if (op === 'machineType:save') await saveMachineType(toSave as Parameters<typeof saveMachineType>[0]);
      else await saveImage(toSave as Parameters<typeof saveImage>[0]);
      toast(`Saved the ${noun} ${String(entry.name)}.`);
      onDone(String(entry.name));
    } catch (err) {
      setError(errorMessage(err));
      setSaving(false);
    }
  }

  function onKey(e: KeyboardEvent) {
    if (e.key === 'Escape') {
      e.preventDefault();
      onDone();
    } else if (e.key === 'Enter' && e.target instanceof HTMLInputElement) {
      e.preventDefault();
      setTouched(Object.fromEntries(fields.map((f) => [f.key, true])));
      void save();
    }
  }

  const title = previousName === undefined ? `New ${noun}` : `Edit ${noun} ${previousName}`;
  return (
    <tr className="entry-edit">
      <td colSpan={colSpan}>
        <div className="entry-form" role="group" aria-label={title} onKeyDown={onKey}>
          {top}
          {fields.map((f, i) => {
            const id = `${base}-${f.key}`;
            const shown = touched[f.key] || draft[f.key] !== initial[f.key] ? byField(f.key) : [];
            const describedBy = [shown.length ? `${id}-error` : undefined, f.hint ? `${id}-hint` : undefined].filter(Boolean).join(' ') || undefined;
            const common = {
              id,
              value: draft[f.key] ?? '',
              'aria-invalid': shown.length ? true : undefined,
              'aria-describedby': describedBy,
              onBlur: () => setTouched((t) => ({ ...t, [f.key]: true })),
            };
            return (
              <div key={f.key} className={`field entry-field${f.wide ? ' entry-field-wide' : ''}`}>
                <label htmlFor={id}>{f.label}</label>
                {f.kind === 'select' ? (
                  <select {...common} onChange={(e) => setDraft((d) => ({ ...d, [f.key]: e.target.value }))}>
                    {f.options?.map((o) => (
                      <option key={o} value={o}>
                        {o}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    {...common}
                    ref={i === 0 ? first : undefined}
                    type="text"
                    inputMode={f.kind === 'number' ? 'numeric' : undefined}
                    spellCheck={false}
                    autoComplete="off"
                    onChange={(e) => setDraft((d) => ({ ...d, [f.key]: e.target.value }))}
                  />
                )}
                {f.hint && (
                  <span className="hint" id={`${id}-hint`}>
                    {f.hint}
                  </span>
                )}
                {shown.length > 0 && (
                  <span className="field-error" id={`${id}-error`}>
                    {shown.map(formatIssue).join('; ')}
                  </span>
                )}
              </div>
            );
          })}
          {general.length > 0 && (
            <ul className="issues error entry-general">
              {general.map((i) => (
                <li key={`${i.path}:${i.message}`}>{formatIssue(i)}</li>
              ))}
            </ul>
          )}
          <div className="entry-actions">
            <button type="button" className="primary" disabled={reason !== undefined} aria-describedby={reason ? `${base}-reason` : undefined} onClick={() => void save()}>
              Save
            </button>
            {/* No blur on press: a field's blur would show its message, move this button down, and the click would miss it. */}
            <button type="button" onMouseDown={(e) => e.preventDefault()} onClick={() => onDone()}>
              Cancel
            </button>
            {reason && (
              <span className="hint entry-reason" id={`${base}-reason`}>
                {reason}
              </span>
            )}
          </div>
          {error && (
            <p role="alert" className="error">
              Not saved: {error}
            </p>
          )}
        </div>
      </td>
    </tr>
  );
}
