/**
 * The inline editor of one catalog entry (a machine type or an image): a table row whose
 * one cell holds the fields. The form is one object (shared/catalog-entry-form.ts) checked
 * on every keystroke by the backend's own check, so the messages under the fields are the
 * ones a save would get; Save stays disabled, with the reason beside it, until there is
 * none. Enter saves, Escape cancels. `EntryForm` is given its form and check (the Add image
 * form holds more than the entry); `CatalogEntryEditor` holds them itself.
 */
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import {
  type CatalogEntryCheck,
  type CatalogEntryFields,
  type CatalogEntryForm,
  type CatalogEntryKind,
  ENTRY_FIELDS,
  checkCatalogEntry,
} from '../../shared/catalog-entry-form.js';
import { errorMessage } from '../format.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { saveImage, saveMachineType } from '../stores/catalog-actions.js';
import { useUiStore } from '../stores/ui-store.js';
import { ENTRY_FIELD_TABLES, type EntryFieldSpec } from './catalog-fields.js';
import { useConfigBusy } from './config-busy.js';
import { Field } from './Field.js';
import { Refusal } from './Refusal.js';

const NOUN: Record<CatalogEntryKind, string> = { machineType: 'machine type', image: 'image' };

/** Where an entry form sits and what it says when it closes. */
interface EntryPlace {
  /** The entry's current name when editing; absent when adding. */
  previousName?: string | undefined;
  colSpan: number;
  /** Called when the form closes: with the saved name, or nothing when cancelled. */
  onDone: (saved?: string) => void;
}

export interface EntryFormProps<K extends CatalogEntryKind> extends EntryPlace {
  kind: K;
  form: CatalogEntryForm<K>;
  /** The form as it opened: a field changed from it shows its problem at once, an untouched one after its blur. */
  initial: CatalogEntryForm<K>;
  onField: (field: CatalogEntryFields[K], value: string) => void;
  check: CatalogEntryCheck<CatalogEntryFields[K]>;
  /** Shown above the fields. */
  top?: ReactNode;
  /** Runs when Save is pressed, before the save call; answers the entry to save. What it throws is shown as "Not saved". */
  beforeSave?: ((entry: Record<string, unknown>) => Promise<Record<string, unknown>>) | undefined;
}

export function EntryForm<K extends CatalogEntryKind>({
  kind,
  form,
  initial,
  onField,
  check,
  previousName,
  colSpan,
  onDone,
  top,
  beforeSave,
}: EntryFormProps<K>) {
  const base = useId();
  const busy = useConfigBusy();
  const toast = useUiStore((s) => s.toast);
  const [touched, setTouched] = useState<Partial<Record<CatalogEntryFields[K], boolean>>>({});
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);

  const fields = ENTRY_FIELDS[kind];
  const table = ENTRY_FIELD_TABLES[kind] as Record<CatalogEntryFields[K], EntryFieldSpec>;
  const { entry, issues } = check;
  const reason = saving
    ? 'Saving…'
    : issues.length
      ? `Cannot save yet: ${issues[0]}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`
      : busy;

  async function save() {
    if (reason) return;
    setSaving(true);
    setError(undefined);
    try {
      const toSave = beforeSave ? await beforeSave(entry) : entry;
      // Checked above with the backend's own check; resolves once the catalog shows the saved entry, so onDone can focus its row.
      if (kind === 'machineType') await saveMachineType(toSave as Parameters<typeof saveMachineType>[0]);
      else await saveImage(toSave as Parameters<typeof saveImage>[0]);
      toast(`Saved the ${NOUN[kind]} ${String(entry.name)}.`);
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
      setTouched(Object.fromEntries(fields.map((f) => [f, true])) as Record<CatalogEntryFields[K], boolean>);
      void save();
    }
  }

  const title = previousName === undefined ? `New ${NOUN[kind]}` : `Edit ${NOUN[kind]} ${previousName}`;
  return (
    <tr className="entry-edit">
      <td colSpan={colSpan}>
        <div className="entry-form" role="group" aria-label={title} onKeyDown={onKey}>
          {top}
          {fields.map((field, i) => {
            const spec = table[field];
            const set = (value: string) => onField(field, value);
            const shown = touched[field] || form[field] !== initial[field] ? check.problems[field] : undefined;
            return (
              <Field
                key={field}
                id={`${base}-${field}`}
                label={spec.label}
                error={shown}
                announce={false}
                hint={spec.hint}
                keepHint
                className={`entry-field${spec.wide ? ' entry-field-wide' : ''}`}
              >
                {(c) => {
                  const common = {
                    ...c,
                    value: form[field],
                    onBlur: () => setTouched((t) => ({ ...t, [field]: true })),
                  };
                  return spec.kind === 'select' ? (
                    <select {...common} onChange={(e) => set(e.target.value)}>
                      {spec.options?.map((o) => (
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
                      inputMode={spec.kind === 'number' ? 'numeric' : undefined}
                      spellCheck={false}
                      autoComplete="off"
                      onChange={(e) => set(e.target.value)}
                    />
                  );
                }}
              </Field>
            );
          })}
          {check.general.length > 0 && (
            <ul className="issues error entry-general">
              {check.general.map((text) => (
                <li key={text}>{text}</li>
              ))}
            </ul>
          )}
          <div className="entry-actions">
            <button
              type="button"
              className="primary"
              disabled={reason !== undefined}
              aria-describedby={reason ? `${base}-reason` : undefined}
              onClick={() => void save()}
            >
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
          <Refusal what="Not saved" error={error} />
        </div>
      </td>
    </tr>
  );
}

/** An entry form that holds its own form object: Edit on a row, and Add machine type. */
export function CatalogEntryEditor<K extends CatalogEntryKind>({
  kind,
  initial,
  ...place
}: EntryPlace & { kind: K; initial: CatalogEntryForm<K> }) {
  const config = useAppConfigStore((s) => s.state?.config);
  const [form, setForm] = useState(initial);
  const check = checkCatalogEntry(config, kind, form, { previousName: place.previousName });
  return (
    <EntryForm
      kind={kind}
      form={form}
      initial={initial}
      onField={(field, value) => setForm((f) => ({ ...f, [field]: value }))}
      check={check}
      {...place}
    />
  );
}
