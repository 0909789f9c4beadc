/**
 * A catalog panel (machine types, images): its heading and Add, then its table of entries,
 * or what it says while there is none, and the removal dialog of the entry being removed.
 * What differs between the panels (their columns, rows and forms) is given by each.
 */
import type { ReactNode } from 'react';
import type { CatalogKind } from '../stores/catalog-actions.js';
import type { CatalogPanelState } from './catalog-panel-state.js';
import { CatalogRemoveDialog } from './CatalogRemoveDialog.js';
import { ColumnHeads } from './ColumnHeads.js';

/** What a panel is and says: the same on every render. */
export interface CatalogPanelSpec {
  kind: CatalogKind;
  title: string;
  addLabel: string;
  /** Stands instead of the table while there is no entry and no new entry's form. */
  emptyText: string;
  /** The entries' own column headings; Default and Actions (for assistive technology only) follow. */
  columns: readonly string[];
}

export interface CatalogPanelProps {
  spec: CatalogPanelSpec;
  /** The panel's state (useCatalogPanel). */
  state: CatalogPanelState;
  onAdd: () => void;
  /** Between the head and the table (the images' quick adds). */
  above?: ReactNode;
  /** How many entries there are. */
  count: number;
  /** The table's rows: the entries', and the new entry's form after them. */
  children: ReactNode;
}

export function CatalogPanel({ spec, state, onAdd, above, count, children }: CatalogPanelProps) {
  const { kind, title, addLabel, emptyText, columns } = spec;
  const { id, editing, removing, setRemoving, canAdd } = state;
  return (
    <section className="panel" aria-labelledby={id}>
      <div className="panel-head">
        <h3 id={id}>{title}</h3>
        <button type="button" className="small" data-focus="add" disabled={!canAdd} onClick={onAdd}>
          {addLabel}
        </button>
      </div>
      {above}
      {count === 0 && editing !== '' ? (
        <p className="empty">{emptyText}</p>
      ) : (
        <table className="catalog-table">
          <ColumnHeads names={[...columns, 'Default']}>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </ColumnHeads>
          <tbody>{children}</tbody>
        </table>
      )}
      {removing && <CatalogRemoveDialog kind={kind} name={removing} onClose={() => setRemoving(undefined)} />}
    </section>
  );
}

/** How many columns a panel's table has: the entries' own, Default and Actions (a form's one cell spans them all). */
export const catalogColSpan = (spec: CatalogPanelSpec): number => spec.columns.length + 2;
