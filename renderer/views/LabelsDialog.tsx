/**
 * Edits one proxy's labels in place (`proxies:label`: the metadata changes, the VM keeps
 * running). The text is read by the Launch form's own parser (shared/launch-form.ts), so
 * both accept the same `key=value` words; only the difference is sent (labelEdit). The row
 * follows the answer at once and the `proxy:changed` event that comes after it.
 */
import { type FormEvent, useId, useState } from 'react';
import type { ProxyRecordView } from '../../shared/proxies.js';
import { labelsError, parseLabels } from '../../shared/launch-form.js';
import { errorMessage } from '../format.js';
import { labelEdit, labelsText } from '../proxy-fleet.js';
import { labelProxy } from '../stores/proxy-actions.js';
import { useUiStore } from '../stores/ui-store.js';
import { Modal } from './ConfirmDialog.js';
import { Field } from './Field.js';
import { Refusal } from './Refusal.js';

export function LabelsDialog({ proxy, onClose }: { proxy: ProxyRecordView; onClose: () => void }) {
  const base = useId();
  const ids = { heading: `${base}-h`, field: `${base}-labels` };
  const toast = useUiStore((s) => s.toast);
  const [text, setText] = useState(() => labelsText(proxy.labels));
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | undefined>();
  const invalid = labelsError(text);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (invalid) return;
    const { set, remove } = labelEdit(proxy.labels, parseLabels(text));
    if (!Object.keys(set).length && !remove.length) {
      onClose();
      return;
    }
    setSaving(true);
    setSaveError(undefined);
    try {
      await labelProxy(proxy, set, remove);
      toast(`Labels of ${proxy.name} saved`);
      onClose();
    } catch (err) {
      setSaveError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  }

  return (
    <Modal labelledBy={ids.heading} onClose={onClose} className="confirm">
      <form onSubmit={(e) => void save(e)} noValidate>
        <h2 id={ids.heading}>Labels of {proxy.name}</h2>
        <Field
          id={ids.field}
          label="Labels"
          error={invalid}
          hint="key=value pairs, separated by spaces or commas. Remove a pair to remove the label. Saved in the VM's metadata; it keeps running."
        >
          {(c) => (
            <input
              {...c}
              value={text}
              spellCheck={false}
              autoFocus
              placeholder="env=prod team=web"
              onChange={(e) => setText(e.target.value)}
            />
          )}
        </Field>
        <Refusal what="Could not save the labels" error={saveError} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving || invalid !== undefined}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
