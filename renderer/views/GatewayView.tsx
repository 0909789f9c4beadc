/**
 * Gateway (issue 40): one address for the whole fleet. Whether it runs and where (a form on
 * the house's pattern: shared/gateway-form.ts), Copy URL for the first client (the URL,
 * with the client's password, is fetched on demand and never rendered), Client settings in
 * every format (GatewayClientSettingsDialog.tsx), the members with their state and share of
 * the requests, totals and rates, and the newest requests with a filter. Everything comes
 * from the gateway store, which follows the backend's events.
 */
import { useId, useState } from 'react';
import {
  type GatewayField,
  type GatewayForm,
  checkGatewayForm,
  gatewayToForm,
  sameGatewayForm,
} from '../../shared/gateway-form.js';
import { errorMessage } from '../format.js';
import { useGatewayStore } from '../stores/gateway-store.js';
import { Field } from './Field.js';
import { FormFoot } from './FormFoot.js';
import { GatewayClientSettingsDialog } from './GatewayClientSettingsDialog.js';
import { GatewayMembers } from './GatewayMembers.js';
import { GatewayRequests } from './GatewayRequests.js';
import { LoadState } from './LoadState.js';
import { ViewSection } from './ViewSection.js';

export function GatewayView() {
  const id = useId();
  const status = useGatewayStore((s) => s.status);
  const requests = useGatewayStore((s) => s.requests);
  const loadError = useGatewayStore((s) => s.error);
  const setGateway = useGatewayStore((s) => s.set);
  const copyUrl = useGatewayStore((s) => s.copyUrl);
  const [edited, setEdited] = useState<GatewayForm>();
  const [problems, setProblems] = useState<Partial<Record<GatewayField, string>>>({});
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string>();
  const [settingsOpen, setSettingsOpen] = useState(false);

  const inForce = status ? gatewayToForm(status.settings) : undefined;
  // What the form shows: the person's edit once there is one, else what is in force (so it
  // follows the backend's updates until the person types).
  const draft = edited ?? inForce;
  const setDraft = (next: GatewayForm) => setEdited(next);

  const changed = !!draft && !!inForce && !sameGatewayForm(draft, inForce);
  const save = async () => {
    if (!draft) return;
    const checked = checkGatewayForm(draft);
    setProblems(checked.ok ? {} : checked.problems);
    if (!checked.ok) return;
    setSaving(true);
    setSaveError(undefined);
    try {
      await setGateway(checked.settings);
      setEdited(undefined);
    } catch (err) {
      setSaveError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  const where = status?.running
    ? `Running on ${status.address}:${status.port}${status.socksPort !== undefined ? ` (SOCKS5 on port ${status.socksPort})` : ''}`
    : status?.error
      ? 'Not running'
      : 'Off';
  return (
    <ViewSection
      headingId="gateway-h"
      title="Gateway"
      meta={
        status && (
          <>
            access log: <code>{status.logFile}</code>
          </>
        )
      }
    >
      <LoadState what="the gateway" loaded={!!status} error={loadError} />
      {status && (
        <>
          <p role="status" className="gateway-state">
            {where}
            {status.error && <span className="error">: {status.error}</span>}
          </p>
          <div className="settings-actions">
            <button type="button" disabled={!status.running} onClick={() => void copyUrl()}>
              Copy URL
            </button>
            {status.socksPort !== undefined && (
              <button type="button" disabled={!status.running} onClick={() => void copyUrl(true)}>
                Copy SOCKS5 URL
              </button>
            )}
            <button type="button" onClick={() => setSettingsOpen(true)}>
              Client settings
            </button>
          </div>
          {settingsOpen && (
            <GatewayClientSettingsDialog
              clients={status.clients}
              socks={status.running ? status.socksPort !== undefined : status.settings.socksPort !== null}
              onClose={() => setSettingsOpen(false)}
            />
          )}
          <GatewayMembers status={status} />
          <GatewayRequests requests={requests} />
          {draft && (
            <form
              className="settings-form"
              aria-label="Gateway settings"
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                void save();
              }}
            >
              <fieldset className="panel">
                <legend>Where it listens</legend>
                <Field
                  id={`${id}-on`}
                  label="Run the gateway"
                  checkbox
                  hint="Off unless you turn it on: it opens ports."
                >
                  {(c) => (
                    <input
                      {...c}
                      type="checkbox"
                      checked={draft.enabled}
                      onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
                    />
                  )}
                </Field>
                {(
                  [
                    ['port', 'HTTP port', 'numeric', '0: any free one.'],
                    ['socksPort', 'SOCKS5 port', 'numeric', 'Empty: no SOCKS5 listener.'],
                    [
                      'bind',
                      'Address',
                      'text',
                      '127.0.0.1 unless you need it reachable from elsewhere; then only with clients.',
                    ],
                  ] as const
                ).map(([field, label, mode, hint]) => (
                  <Field
                    key={field}
                    id={`${id}-${field}`}
                    label={label}
                    error={problems[field]}
                    announce={false}
                    hint={hint}
                  >
                    {(c) => (
                      <input
                        {...c}
                        inputMode={mode}
                        spellCheck={false}
                        value={draft[field]}
                        onChange={(e) => setDraft({ ...draft, [field]: e.target.value })}
                      />
                    )}
                  </Field>
                ))}
              </fieldset>
              <FormFoot
                refusals={saveError ? [saveError] : []}
                invalid={Object.keys(problems).length}
                changed={changed}
                saving={saving}
                onDiscard={() => (setEdited(undefined), setProblems({}))}
              />
            </form>
          )}
        </>
      )}
    </ViewSection>
  );
}
