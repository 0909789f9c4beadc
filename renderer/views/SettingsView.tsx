/**
 * Settings: the app's own settings (settings.json in the data directory, not config.yaml),
 * read with settings:get and saved with settings:set — the health probe's URLs and slow
 * threshold, auto-bake, auto-replace. The per-host image transfer is edited under each
 * host in Hosts. The form is checked with the contract's own schema before it is sent
 * (the backend checks again); a problem shows under its field with the schema's message.
 * Nothing needs a restart: the health monitor reads the file each round, auto-bake at
 * each launch, auto-replace at each check.
 */
import { useEffect, useId, useState } from 'react';
import {
  DEFAULT_SLOW_MS,
  type EditableSettings,
  type SettingsSetInput,
  SettingsSetInputSchema,
  type SettingsView as Loaded,
} from '../../shared/app-settings.js';
import { configErrorMap, formatPath } from '../../shared/config-issues.js';
import { BridgeError } from '../../shared/ipc.js';
import { errorMessage } from '../format.js';
import { readSettings, saveSettings } from '../stores/settings-actions.js';
import { Field } from './Field.js';

/** The form as typed: text for every field a person types into. */
interface Draft {
  checkUrl: string;
  echoUrl: string;
  slowMs: string;
  autoBake: boolean;
  autoReplace: boolean;
  afterMinutes: string;
  maxPerHour: string;
}

type Field =
  | 'health.checkUrl'
  | 'health.echoUrl'
  | 'health.slowMs'
  | 'autoBake'
  | 'autoReplace.enabled'
  | 'autoReplace.afterMinutes'
  | 'autoReplace.maxPerHour';

function draftOf(s: EditableSettings): Draft {
  return {
    checkUrl: s.health.checkUrl ?? '',
    echoUrl: s.health.echoUrl ?? '',
    slowMs: s.health.slowMs === undefined ? '' : String(s.health.slowMs),
    autoBake: s.autoBake,
    autoReplace: s.autoReplace.enabled,
    afterMinutes: String(s.autoReplace.afterMinutes),
    maxPerHour: String(s.autoReplace.maxPerHour),
  };
}

const sameDraft = (a: Draft, b: Draft) => (Object.keys(a) as (keyof Draft)[]).every((k) => a[k] === b[k]);

/** A typed number: the number when it is one, else the text itself, so the schema's message names what was typed. */
function numberOf(text: string): number | string | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** What settings:set gets: an empty field means its default (no URL, 2000 ms, 10 minutes, 2 an hour). */
function inputOf(d: Draft): Record<string, unknown> {
  const health: Record<string, unknown> = {};
  if (d.checkUrl.trim()) health.checkUrl = d.checkUrl.trim();
  if (d.echoUrl.trim()) health.echoUrl = d.echoUrl.trim();
  const slow = numberOf(d.slowMs);
  if (slow !== undefined) health.slowMs = slow;
  const autoReplace: Record<string, unknown> = { enabled: d.autoReplace };
  const after = numberOf(d.afterMinutes);
  if (after !== undefined) autoReplace.afterMinutes = after;
  const max = numberOf(d.maxPerHour);
  if (max !== undefined) autoReplace.maxPerHour = max;
  return { health, autoBake: d.autoBake, autoReplace };
}

/** The problems of the form by field, in the contract's words (the backend's, when it refused it). */
type Problems = Partial<Record<Field, string>>;

function problemsOf(issues: readonly { path: string; message: string }[]): { fields: Problems; other: string[] } {
  const fields: Problems = {};
  const other: string[] = [];
  for (const i of issues) {
    if (
      [
        'health.checkUrl',
        'health.echoUrl',
        'health.slowMs',
        'autoBake',
        'autoReplace.enabled',
        'autoReplace.afterMinutes',
        'autoReplace.maxPerHour',
      ].includes(i.path)
    )
      fields[i.path as Field] ??= i.message;
    else other.push(i.path ? `${i.path}: ${i.message}` : i.message);
  }
  return { fields, other };
}

/**
 * A text field of the form. Its problem is not announced by itself: the form's summary under
 * the fieldsets is the alert, naming how many fields need fixing.
 */
function TextField(props: {
  id: string;
  label: string;
  hint: string;
  value: string;
  error: string | undefined;
  onChange: (v: string) => void;
  inputMode?: 'numeric' | 'decimal' | 'url';
  placeholder?: string;
}) {
  const { id, label, hint, value, error, onChange } = props;
  return (
    <Field id={id} label={label} error={error} announce={false} hint={hint}>
      {(c) => (
        <input
          {...c}
          value={value}
          spellCheck={false}
          {...(props.inputMode ? { inputMode: props.inputMode } : {})}
          {...(props.placeholder ? { placeholder: props.placeholder } : {})}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

export function SettingsView() {
  const id = useId();
  const [loaded, setLoaded] = useState<Loaded>();
  const [draft, setDraft] = useState<Draft>();
  const [loadError, setLoadError] = useState<string>();
  const [problems, setProblems] = useState<{ fields: Problems; other: string[] }>({ fields: {}, other: [] });
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    let live = true;
    readSettings().then(
      (v) => live && (setLoaded(v), setDraft(draftOf(v.settings)), setLoadError(undefined)),
      (err: unknown) => live && setLoadError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, []);

  const changed = !!loaded && !!draft && !sameDraft(draft, draftOf(loaded.settings));
  const edit = (patch: Partial<Draft>) => {
    if (!draft) return;
    const next = { ...draft, ...patch };
    setDraft(next);
    setSaved(false);
    // Once a save showed problems, they follow the typing: a fixed field loses its message.
    if (Object.keys(problems.fields).length) setProblems(problemsOf(check(next)));
  };

  /** The contract's own schema, with the config's wording: the messages the backend would give. */
  const check = (d: Draft) => {
    const parsed = SettingsSetInputSchema.safeParse(inputOf(d), { error: configErrorMap });
    return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message }));
  };

  const save = async () => {
    if (!draft) return;
    const issues = check(draft);
    setProblems(problemsOf(issues));
    if (issues.length) return;
    setSaving(true);
    try {
      const next = await saveSettings(inputOf(draft) as SettingsSetInput);
      setLoaded(next);
      setDraft(draftOf(next.settings));
      setSaved(true);
    } catch (err) {
      setProblems(
        err instanceof BridgeError && err.issues?.length
          ? problemsOf(err.issues)
          : { fields: {}, other: [errorMessage(err)] },
      );
    } finally {
      setSaving(false);
    }
  };

  const f = problems.fields;
  const ids = { check: `${id}-check`, echo: `${id}-echo`, slow: `${id}-slow`, after: `${id}-after`, max: `${id}-max` };
  return (
    <section className="view" aria-labelledby="settings-h">
      <div className="view-head">
        <h2 id="settings-h">Settings</h2>
        {loaded && (
          <span className="meta">
            kept in <code>{loaded.file}</code>, not in config.yaml
          </span>
        )}
      </div>
      {loadError && (
        <p role="alert" className="error">
          Cannot read the settings: {loadError}
        </p>
      )}
      {!draft && !loadError && <p className="meta">Reading the settings…</p>}
      {draft && (
        <form
          className="settings-form"
          aria-labelledby="settings-h"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <fieldset className="panel">
            <legend>Health</legend>
            <p className="hint">
              Every 30 s each running proxy is asked for a page through itself; the figures are in Proxies and in the
              inspector.
            </p>
            <TextField
              id={ids.check}
              label="Check URL"
              inputMode="url"
              placeholder="https://example.com/"
              hint="Fetched through each proxy for its status and latency. Empty: the proxy itself is asked."
              value={draft.checkUrl}
              error={f['health.checkUrl']}
              onChange={(checkUrl) => edit({ checkUrl })}
            />
            <TextField
              id={ids.echo}
              label="Echo URL"
              inputMode="url"
              hint="Answers the caller's address (plain text or {&quot;ip&quot;: …}): fetched instead of the check URL, it shows each proxy's exit address."
              value={draft.echoUrl}
              error={f['health.echoUrl']}
              onChange={(echoUrl) => edit({ echoUrl })}
            />
            <TextField
              id={ids.slow}
              label="Slow threshold (ms)"
              inputMode="numeric"
              placeholder={String(DEFAULT_SLOW_MS)}
              hint={`An answer slower than this is shown as slow. Empty: ${DEFAULT_SLOW_MS} ms.`}
              value={draft.slowMs}
              error={f['health.slowMs']}
              onChange={(slowMs) => edit({ slowMs })}
            />
          </fieldset>
          <fieldset className="panel">
            <legend>Baking</legend>
            <Field
              id={`${id}-bake`}
              label="Bake automatically after the first launch on a host"
              checkbox
              hint="After a launch on a plain base image, a background task bakes the image on that host (the proxy software installed once), so later launches there boot ready. Images & machine types has Bake for doing it by hand."
            >
              {(c) => (
                <input
                  {...c}
                  type="checkbox"
                  checked={draft.autoBake}
                  onChange={(e) => edit({ autoBake: e.target.checked })}
                />
              )}
            </Field>
          </fieldset>
          <fieldset className="panel">
            <legend>Auto-replace</legend>
            <Field
              id={`${id}-ar`}
              label="Replace my proxies whose health keeps failing"
              checkbox
              hint="Only proxies launched from this workstation by you; each replacement is a task in Tasks."
            >
              {(c) => (
                <input
                  {...c}
                  type="checkbox"
                  checked={draft.autoReplace}
                  onChange={(e) => edit({ autoReplace: e.target.checked })}
                />
              )}
            </Field>
            <TextField
              id={ids.after}
              label="After failing for (minutes)"
              inputMode="decimal"
              hint="How long health must have been failing before the proxy is replaced. Empty: 10."
              value={draft.afterMinutes}
              error={f['autoReplace.afterMinutes']}
              onChange={(afterMinutes) => edit({ afterMinutes })}
            />
            <TextField
              id={ids.max}
              label="At most per hour"
              inputMode="numeric"
              hint="Replacements started in any hour across the fleet, so a broken host does not churn it. Empty: 2."
              value={draft.maxPerHour}
              error={f['autoReplace.maxPerHour']}
              onChange={(maxPerHour) => edit({ maxPerHour })}
            />
          </fieldset>
          {problems.other.length > 0 && (
            <div role="alert" className="error">
              {problems.other.map((p) => (
                <p key={p}>Cannot save: {p}</p>
              ))}
            </div>
          )}
          {Object.keys(f).length > 0 && (
            <p role="alert" className="error">
              Not saved: {Object.keys(f).length === 1 ? 'a field needs' : 'some fields need'} fixing (shown under{' '}
              {Object.keys(f).length === 1 ? 'it' : 'each'}).
            </p>
          )}
          <div className="settings-actions">
            <button type="submit" className="primary" disabled={!changed || saving}>
              {saving ? 'Saving…' : 'Save'}
            </button>
            <button
              type="button"
              disabled={!changed || saving}
              onClick={() => (loaded && setDraft(draftOf(loaded.settings)), setProblems({ fields: {}, other: [] }))}
            >
              Discard changes
            </button>
            {saved && !changed && (
              <span role="status" className="ok">
                Saved. The health probe uses it from its next round, auto-bake from the next launch, auto-replace from
                its next check.
              </span>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
