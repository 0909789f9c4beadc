/** The catalog's removal confirmation, for a machine type or an image. */
import { useId, useState } from 'react';
import { type CatalogEdit, catalogEditIssues } from '../../shared/catalog-edit.js';
import { formatIssue } from '../../shared/config.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { type CatalogKind as Kind, removeCatalogEntry } from '../stores/catalog-actions.js';
import { errorMessage } from '../format.js';
import { useUiStore } from '../stores/ui-store.js';
import { CATALOG_NOUN as NOUN } from './catalog-noun.js';
import { Modal } from './ConfirmDialog.js';
import { Refusal } from './Refusal.js';

export interface CatalogRemoveDialogProps {
  kind: Kind;
  name: string;
  /** Called when the dialog closes: cancelled, or once the entry is gone (a toast says so). */
  onClose: () => void;
}

/** The removal confirmation; when the shared check refuses, it says why and offers no Remove. */
export function CatalogRemoveDialog({ kind, name, onClose }: CatalogRemoveDialogProps) {
  const id = useId();
  const config = useAppConfigStore((s) => s.state?.config);
  const toast = useUiStore((s) => s.toast);
  const [error, setError] = useState<string>();
  const edit: CatalogEdit = kind === 'machineType' ? { op: 'machineType:remove', name } : { op: 'image:remove', name };
  const issues = catalogEditIssues(config, edit);
  async function remove() {
    setError(undefined);
    try {
      await removeCatalogEntry(kind, name);
    } catch (err) {
      setError(errorMessage(err));
      return;
    }
    onClose();
    toast(`Removed the ${NOUN[kind]} ${name}.`);
  }
  return (
    <Modal labelledBy={id} onClose={onClose} className="confirm">
      <h2 id={id}>
        Remove the {NOUN[kind]} {name}?
      </h2>
      {issues.length > 0 ? (
        <div role="alert" aria-label="Why it cannot be removed">
          <p>It cannot be removed now:</p>
          <ul className="issues error">
            {issues.map((i) => (
              <li key={i.path}>{formatIssue(i)}</li>
            ))}
          </ul>
        </div>
      ) : (
        <p>
          It is taken out of the config file. Proxies already launched with it keep running.
          {kind === 'image' &&
            ' The cached file stays in the image cache (it is shared by digest and is what hosts are uploaded from).'}
        </p>
      )}
      <Refusal what="Not removed" error={error} />
      <div className="dialog-actions">
        <button type="button" autoFocus onClick={onClose}>
          {issues.length ? 'Close' : 'Cancel'}
        </button>
        {issues.length === 0 && (
          <button type="button" className="danger" onClick={() => void remove()}>
            Remove
          </button>
        )}
      </div>
    </Modal>
  );
}
