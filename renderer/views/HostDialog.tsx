/**
 * Add or edit a host: one field per setting of the config's host entry, validated as the
 * person types with the config's own rules (shared/host-form.ts: the schema and the
 * cross-field checks, against the config as loaded), so the messages are the ones a save
 * would give. Save stays disabled, with the reason beside it, while anything is wrong.
 */
import { type FormEvent, useId, useMemo, useState } from 'react';
import type { KVMHost } from '../../shared/config.js';
import { DOMAIN_TYPES } from '../../shared/config.js';
import {
  EMPTY_HOST_FORM,
  HOST_FIELDS,
  type HostField,
  type HostForm,
  formToHost,
  hostToForm,
  issuesByField,
  validateHostCandidate,
} from '../../shared/host-form.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { saveHost } from '../stores/host-actions.js';
import { errorMessage } from '../format.js';
import { Modal } from './ConfirmDialog.js';
import { Field } from './Field.js';
import { Refusal } from './Refusal.js';

/** The host fields typed as text; the domain type is a choice. */
type TextField = Exclude<HostField, 'domainType'>;

/** How each text field is shown, keyed by field so that a field added to the host form cannot go without its label. */
const TEXT_FIELDS: { readonly [F in TextField]: { label: string; hint: string; placeholder?: string } } = {
  name: { label: 'Name', hint: 'A lowercase DNS label, unique among the hosts, e.g. edge-a.' },
  address: {
    label: 'Address',
    hint: '"local" for this machine, else the hostname or IP address reached over SSH.',
    placeholder: 'local or 203.0.113.10',
  },
  sshUser: { label: 'SSH user', hint: 'Empty: from ~/.ssh/config, else your user name.' },
  sshPort: { label: 'SSH port', hint: 'Empty: from ~/.ssh/config, else 22.', placeholder: '22' },
  identityFile: {
    label: 'Identity file',
    hint: 'Empty: your SSH agent and ~/.ssh/config. An encrypted key asks for its passphrase.',
    placeholder: '~/.ssh/id_ed25519',
  },
  socketPath: { label: 'libvirt socket path', hint: 'Empty: /var/run/libvirt/libvirt-sock (the system daemon).' },
  pool: { label: 'Storage pool', hint: 'Empty: default.' },
  network: { label: 'Network', hint: 'A libvirt network (empty: default). Set this or a bridge, not both.' },
  bridge: { label: 'Bridge', hint: 'A host bridge such as br0, instead of a network.' },
};

/** The text fields in the host form's order (the schema's). */
const TEXT_FIELD_ORDER = HOST_FIELDS.filter((f): f is TextField => f !== 'domainType');

export function HostDialog({ editing, onClose }: { editing?: KVMHost; onClose: () => void }) {
  const base = useId();
  const headingId = `${base}-h`;
  const config = useAppConfigStore((s) => s.state?.config);
  const [form, setForm] = useState<HostForm>(editing ? hostToForm(editing) : { ...EMPTY_HOST_FORM });
  const [touched, setTouched] = useState<Partial<Record<HostField, boolean>>>({});
  const [submitting, setSubmitting] = useState(false);
  const [submitError, setSubmitError] = useState<string>();

  const issues = useMemo(
    () => validateHostCandidate(config, formToHost(form), editing ? { replacing: editing.name } : {}),
    [config, form, editing],
  );
  const byField = issuesByField(issues);
  const shown = (field: HostField) => (touched[field] ? byField[field] : undefined);
  const reason =
    issues.length === 0
      ? undefined
      : `${issues.length === 1 ? 'One problem' : `${issues.length} problems`} to fix first: ${issues[0]!.text}`;
  const reasonId = `${base}-reason`;

  const change = (field: HostField, value: string) => {
    setForm((f) => ({ ...f, [field]: value }));
    setTouched((t) => ({ ...t, [field]: true }));
    setSubmitError(undefined);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (issues.length > 0 || submitting) return;
    setSubmitting(true);
    try {
      const host = formToHost(form) as KVMHost; // valid: checked with the same rules above, and again by the backend
      await saveHost(host, editing?.name);
      onClose();
    } catch (err) {
      setSubmitError(errorMessage(err));
    } finally {
      setSubmitting(false);
    }
  };

  const title = editing ? `Edit host ${editing.name}` : 'Add a host';
  const id = (field: HostField) => `${base}-${field}`;
  return (
    <Modal labelledBy={headingId} onClose={onClose} className="host-dialog">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <h2 id={headingId}>{title}</h2>
        <div className="host-form">
          {TEXT_FIELD_ORDER.map((field) => (
            <Field
              key={field}
              id={id(field)}
              label={TEXT_FIELDS[field].label}
              error={shown(field)}
              hint={TEXT_FIELDS[field].hint}
            >
              {(c) => (
                <input
                  {...c}
                  autoFocus={field === 'name'}
                  autoComplete="off"
                  spellCheck={false}
                  value={form[field]}
                  placeholder={TEXT_FIELDS[field].placeholder}
                  inputMode={field === 'sshPort' ? 'numeric' : undefined}
                  onChange={(e) => change(field, e.target.value)}
                />
              )}
            </Field>
          ))}
          <Field
            id={id('domainType')}
            label="Domain type"
            error={shown('domainType')}
            hint="auto: KVM where the host offers it, else qemu (emulated, slow)."
          >
            {(c) => (
              <select {...c} value={form.domainType} onChange={(e) => change('domainType', e.target.value)}>
                <option value="">Default (auto)</option>
                {DOMAIN_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        {byField.host && touched.name && (
          <p role="alert" className="error">
            {byField.host}
          </p>
        )}
        <Refusal what="Not saved" error={submitError} />
        <div className="dialog-actions">
          {reason && (
            <span className="hint submit-reason" id={reasonId}>
              {reason}
            </span>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className="primary"
            disabled={issues.length > 0 || submitting}
            aria-describedby={reason ? reasonId : undefined}
          >
            {submitting ? 'Saving…' : editing ? 'Save' : 'Add host'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
