/**
 * Machine types and images, editable in place: Edit turns a row into fields (checked as
 * the person types, by the same function the backend runs), Add appends an empty one,
 * Remove asks first (and says why it cannot when the entry is the default), Make default
 * sets `kvm.defaults`. Images show their cache state, size, digest (full on hover, with a
 * Copy button), whether each host already has the base volume, and a Pull with progress.
 * Every change goes through the backend's one config write path.
 */
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { ImagesPanel } from './ImagesPanel.js';
import { MachineTypesPanel } from './MachineTypesPanel.js';
import { UnusedBases } from './UnusedBases.js';

/** The catalog view: machine types, images and unused base volumes; the catalog is read again when the set of connected hosts changes. */
export function CatalogView() {
  const { machineTypes, images, catalogError } = useAppConfigStore(
    useShallow((s) => ({ machineTypes: s.machineTypes, images: s.images, catalogError: s.catalogError })),
  );
  // Presence is asked only of connected hosts: read the catalog again when that set changes.
  const connected = useHostsStore((s) =>
    s.hosts
      .filter((h) => h.state === 'connected')
      .map((h) => h.name)
      .join(','),
  );
  const refreshCatalog = useAppConfigStore((s) => s.refreshCatalog);
  useEffect(() => {
    void refreshCatalog();
  }, [connected, refreshCatalog]);
  return (
    <section className="view" aria-labelledby="catalog-h">
      <div className="view-head">
        <h2 id="catalog-h">Images &amp; machine types</h2>
      </div>
      {catalogError && (
        <p role="alert" className="error">
          Cannot list them: {catalogError}
        </p>
      )}
      <MachineTypesPanel machineTypes={machineTypes} />
      <ImagesPanel images={images} />
      <UnusedBases />
    </section>
  );
}
