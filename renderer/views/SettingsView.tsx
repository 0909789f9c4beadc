/**
 * Settings: the app's own settings (settings.json in the data directory, not config.yaml),
 * read with settings:get and saved with settings:set — the health probe's URLs, slow
 * threshold and pace, auto-bake, auto-replace. The per-host image transfer is edited under
 * each host in Hosts. The form is one object (shared/settings-form.ts), checked with the
 * contract's own schema before it is sent (the backend checks again); a problem shows under
 * its field with the schema's message.
 * Nothing needs a restart: the health monitor reads the file each round, auto-bake at
 * each launch, auto-replace at each check.
 */
import { useEffect, useId, useState } from 'react';
import { DEFAULT_HEALTH_INTERVAL_S, DEFAULT_SLOW_MS, type SettingsView as Loaded } from '../../shared/app-settings.js';
import { BridgeError } from '../../shared/ipc.js';
import {
  type SettingsForm,
  checkSettingsForm,
  sameSettingsForm,
  settingsIssuesByField,
  settingsToForm,
} from '../../shared/settings-form.js';
import { errorMessage } from '../format.js';
import { readSettings, saveSettings } from '../stores/settings-actions.js';
import { Field } from './Field.js';
import { FormFoot } from './FormFoot.js';
import { LoadState } from './LoadState.js';
import { ViewSection } from './ViewSection.js';

/** The form's problems: by field (the contract's words, or the backend's when it refused), and the rest. */
type Problems = ReturnType<typeof settingsIssuesByField>;

/** The problems of `form` as typed now. */
function problemsOf(form: SettingsForm): Problems {
  const checked = checkSettingsForm(form);
  return checked.ok ? { fields: {}, other: [] } : settingsIssuesByField(checked.issues);
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
  const [draft, setDraft] = useState<SettingsForm>();
  const [loadError, setLoadError] = useState<string>();
  const [problems, setProblems] = useState<Problems>({ fields: {}, other: [] });
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    let live = true;
    readSettings().then(
      (v) => live && (setLoaded(v), setDraft(settingsToForm(v.settings)), setLoadError(undefined)),
      (err: unknown) => live && setLoadError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, []);

  const changed = !!loaded && !!draft && !sameSettingsForm(draft, settingsToForm(loaded.settings));
  const edit = (patch: Partial<SettingsForm>) => {
    if (!draft) return;
    const next = { ...draft, ...patch };
    setDraft(next);
    setSaved(false);
    // Once a save showed problems, they follow the typing: a fixed field loses its message.
    if (Object.keys(problems.fields).length) setProblems(problemsOf(next));
  };

  const save = async () => {
    if (!draft) return;
    const checked = checkSettingsForm(draft);
    setProblems(checked.ok ? { fields: {}, other: [] } : settingsIssuesByField(checked.issues));
    if (!checked.ok) return;
    setSaving(true);
    try {
      const next = await saveSettings(checked.input);
      setLoaded(next);
      setDraft(settingsToForm(next.settings));
      setSaved(true);
    } catch (err) {
      setProblems(
        err instanceof BridgeError && err.issues?.length
          ? settingsIssuesByField(err.issues)
          : { fields: {}, other: [errorMessage(err)] },
      );
    } finally {
      setSaving(false);
    }
  };

  const f = problems.fields;
  const ids = {
    check: `${id}-check`,
    echo: `${id}-echo`,
    slow: `${id}-slow`,
    interval: `${id}-interval`,
    after: `${id}-after`,
    max: `${id}-max`,
  };
  return (
    <ViewSection
      headingId="settings-h"
      title="Settings"
      meta={
        loaded && (
          <>
            kept in <code>{loaded.file}</code>, not in config.yaml
          </>
        )
      }
    >
      <LoadState what="the settings" loaded={!!draft} error={loadError} />
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
              Every round each running proxy is asked for a page through itself; the figures are in Proxies and in the
              inspector.
            </p>
            <TextField
              id={ids.interval}
              label="Every (seconds)"
              inputMode="numeric"
              placeholder={String(DEFAULT_HEALTH_INTERVAL_S)}
              hint={`Seconds between two rounds, 5 to 3600: shorter notices a dead proxy sooner (and auto-replace acts sooner). Empty: ${DEFAULT_HEALTH_INTERVAL_S}.`}
              value={draft.intervalSeconds}
              error={f['health.intervalSeconds']}
              onChange={(intervalSeconds) => edit({ intervalSeconds })}
            />
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
          <FormFoot
            refusals={problems.other}
            invalid={Object.keys(f).length}
            changed={changed}
            saving={saving}
            onDiscard={() => (
              loaded && setDraft(settingsToForm(loaded.settings)),
              setProblems({ fields: {}, other: [] })
            )}
          >
            {saved && !changed && (
              <span role="status" className="ok">
                Saved. The health probe uses it from its next round, auto-bake from the next launch, auto-replace from
                its next check.
              </span>
            )}
          </FormFoot>
        </form>
      )}
    </ViewSection>
  );
}
