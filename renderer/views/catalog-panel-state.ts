/**
 * The state of a catalog panel (machine types, images), the same for both: which row is a
 * form, which entry is being removed, whether the config can change, and where focus goes
 * back once a form closes.
 */
import { useState } from 'react';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { useConfigBusy } from './config-busy.js';

/**
 * Puts the focus back where the person was once an inline form closes (the row's Edit
 * button, or Add for a new entry): the form's inputs are gone, and focus must not fall to
 * the page. Names are entry names (a-z, 0-9, ".", "_", "-"): safe in a selector.
 */
function refocus(panel: string, label: string): void {
  requestAnimationFrame(() =>
    document
      .querySelector<HTMLElement>(
        `section[aria-labelledby="${panel}"] button[aria-label="${label}"], section[aria-labelledby="${panel}"] button[data-focus="${label}"]`,
      )
      ?.focus(),
  );
}

/** One catalog panel's state. */
export interface CatalogPanelState {
  /** The id of the panel's heading (the section it labels is where focus returns). */
  id: string;
  /** The entry whose row is a form, '' while the new entry's form is open, null when no form is. */
  editing: string | null;
  setEditing: (name: string | null) => void;
  /** The entry whose removal is being asked. */
  removing: string | undefined;
  setRemoving: (name: string | undefined) => void;
  /** Why the config cannot change now (running tasks), or undefined. */
  busy: string | undefined;
  /** Add is offered: the config has a kvm block to add to, and no new entry's form is open. */
  canAdd: boolean;
  /**
   * Closes the open form and puts the focus back: for the row of `name`, on its Edit (under
   * its saved name when renamed); for the new entry's form (no `name`), on the saved entry's
   * Edit, or on Add when nothing was saved.
   */
  closeForm: (saved: string | undefined, name?: string) => void;
}

/** The state of the panel whose heading has the id `id`. */
export function useCatalogPanel(id: string): CatalogPanelState {
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string>();
  const busy = useConfigBusy();
  const canEdit = useAppConfigStore((s) => s.state?.config?.kvm !== undefined);
  const closeForm = (saved: string | undefined, name?: string) => {
    setEditing(null);
    if (name !== undefined) refocus(id, `Edit ${saved ?? name}`);
    else refocus(id, saved ? `Edit ${saved}` : 'add');
  };
  return { id, editing, setEditing, removing, setRemoving, busy, canAdd: canEdit && editing !== '', closeForm };
}
