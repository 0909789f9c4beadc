/** A catalog row's buttons: Edit, Make default (unless it is the default) and Remove. */
import { setCatalogDefault, type CatalogKind as Kind } from '../stores/catalog-actions.js';
import { errorMessage } from '../format.js';
import { useUiStore } from '../stores/ui-store.js';
import { CATALOG_NOUN as NOUN } from './catalog-noun.js';

/** Runs one catalog action (it resolves once the catalog shows the change) and says how it went in a toast. */
function useCatalogAction() {
  const toast = useUiStore((s) => s.toast);
  return async (what: string, call: () => Promise<unknown>): Promise<boolean> => {
    try {
      await call();
      toast(what);
      return true;
    } catch (err) {
      toast(`Not changed: ${errorMessage(err)}`, 'error');
      return false;
    }
  };
}

export interface CatalogRowActionsProps {
  kind: Kind;
  /** The entry's name: the buttons' accessible names say it ("Edit small"). */
  name: string;
  isDefault: boolean;
  /** Why the config cannot change now (useConfigBusy): Make default waits and says it. */
  busy?: string | undefined;
  onEdit: () => void;
  onRemove: () => void;
}

/** Edit and Remove hand the row back to its panel; Make default is run here and said in a toast. */
export function CatalogRowActions({ kind, name, isDefault, busy, onEdit, onRemove }: CatalogRowActionsProps) {
  const act = useCatalogAction();
  const makeDefault = () => act(`The default ${NOUN[kind]} is now ${name}.`, () => setCatalogDefault(kind, name));
  return (
    <div className="row-actions">
      <button type="button" className="small" aria-label={`Edit ${name}`} onClick={onEdit}>
        Edit
      </button>
      {!isDefault && (
        <button
          type="button"
          className="small"
          aria-label={`Make default: ${name}`}
          disabled={busy !== undefined}
          title={busy}
          onClick={() => void makeDefault()}
        >
          Make default
        </button>
      )}
      <button type="button" className="small danger" aria-label={`Remove ${name}`} onClick={onRemove}>
        Remove
      </button>
    </div>
  );
}
