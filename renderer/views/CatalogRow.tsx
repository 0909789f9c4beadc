/** One entry of a catalog panel's table: a row with the entry's cells, Default and its actions, or, while edited, its form. */
import type { ReactNode } from 'react';
import type { CatalogEntryForm, CatalogEntryKind } from '../../shared/catalog-entry-form.js';
import type { CatalogPanelState } from './catalog-panel-state.js';
import { CatalogEntryEditor } from './CatalogEntryForm.js';
import { CatalogRowActions } from './CatalogRowActions.js';

export interface CatalogRowProps<K extends CatalogEntryKind, E extends { name: string; isDefault: boolean }> {
  kind: K;
  entry: E;
  /** The panel's state: whether this row is the form, and what Edit, Remove and the form's closing change. */
  panel: CatalogPanelState;
  /** The entry as its form opens with (asked only when Edit is pressed). */
  form: (entry: E) => CatalogEntryForm<K>;
  /** The table's columns: the form's one cell spans them. */
  colSpan: number;
  /** The entry's own cells, before Default and the actions. */
  children: ReactNode;
}

export function CatalogRow<K extends CatalogEntryKind, E extends { name: string; isDefault: boolean }>({
  kind,
  entry,
  panel,
  form,
  colSpan,
  children,
}: CatalogRowProps<K, E>) {
  const { name, isDefault } = entry;
  if (panel.editing === name)
    return (
      <CatalogEntryEditor
        kind={kind}
        initial={form(entry)}
        previousName={name}
        colSpan={colSpan}
        onDone={(saved) => panel.closeForm(saved, name)}
      />
    );
  return (
    <tr>
      {children}
      <td>{isDefault ? <span className="badge default-badge">default</span> : ''}</td>
      <td>
        <CatalogRowActions
          kind={kind}
          name={name}
          isDefault={isDefault}
          busy={panel.busy}
          onEdit={() => panel.setEditing(name)}
          onRemove={() => panel.setRemoving(name)}
        />
      </td>
    </tr>
  );
}
