/**
 * Machine types and images, editable in place: Edit turns a row into fields (checked as
 * the person types, by the same function the backend runs), Add appends an empty one,
 * Remove asks first (and says why it cannot when the entry is the default), Make default
 * sets `kvm.defaults`. Images show their cache state, size, digest (full on hover, with a
 * Copy button), whether each host already has the base volume, and a Pull with progress.
 * Every change goes through the backend's one config write path.
 */
import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { type CatalogEdit, catalogEditIssues } from '../../shared/catalog-edit.js';
import { NEW_MACHINE_TYPE_FORM, imageForm, machineTypeForm } from '../../shared/catalog-entry-form.js';
import { formatIssue } from '../../shared/config.js';
import type { ImagePresence, ImageView, MachineTypeView } from '../../shared/images-view.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { type CatalogKind as Kind, removeCatalogEntry, setCatalogDefault } from '../stores/catalog-actions.js';
import { errorMessage, formatBytes } from '../format.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { useUiStore } from '../stores/ui-store.js';
import { CatalogEntryEditor } from './CatalogEntryForm.js';
import { useConfigBusy } from './config-busy.js';
import { ImageAddForm, QuickAdd } from './ImageAddForm.js';
import { Modal } from './ConfirmDialog.js';
import { ImagePull } from './ImagePull.js';
import { ImageBake } from './ImageBake.js';
import { Refusal } from './Refusal.js';
import { UnusedBases } from './UnusedBases.js';

const MT_COLUMNS = 6;
const IMAGE_COLUMNS = 8;

const NOUN: Record<Kind, string> = { machineType: 'machine type', image: 'image' };

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

/** The removal confirmation; when the shared check refuses, it says why and offers no Remove. */
function RemoveDialog({ kind, name, onClose }: { kind: Kind; name: string; onClose: () => void }) {
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
      <h2 id={id}>Remove the {NOUN[kind]} {name}?</h2>
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
          {kind === 'image' && ' The cached file stays in the image cache (it is shared by digest and is what hosts are uploaded from).'}
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

function RowActions({ kind, name, isDefault, busy, onEdit, onRemove }: { kind: Kind; name: string; isDefault: boolean; busy?: string; onEdit: () => void; onRemove: () => void }) {
  const act = useCatalogAction();
  const makeDefault = () =>
    act(`The default ${NOUN[kind]} is now ${name}.`, () => setCatalogDefault(kind, name));
  return (
    <div className="row-actions">
      <button type="button" className="small" aria-label={`Edit ${name}`} onClick={onEdit}>
        Edit
      </button>
      {!isDefault && (
        <button type="button" className="small" aria-label={`Make default: ${name}`} disabled={busy !== undefined} title={busy} onClick={() => void makeDefault()}>
          Make default
        </button>
      )}
      <button type="button" className="small danger" aria-label={`Remove ${name}`} onClick={onRemove}>
        Remove
      </button>
    </div>
  );
}

/**
 * Puts the focus back where the person was once an inline form closes (the row's Edit
 * button, or Add for a new entry): the form's inputs are gone, and focus must not fall to
 * the page. Names are entry names (a-z, 0-9, ".", "_", "-"): safe in a selector.
 */
function refocus(panel: string, label: string): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>(`section[aria-labelledby="${panel}"] button[aria-label="${label}"], section[aria-labelledby="${panel}"] button[data-focus="${label}"]`)?.focus());
}

function MachineTypes({ machineTypes }: { machineTypes: MachineTypeView[] }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string>();
  const busy = useConfigBusy();
  const canEdit = useAppConfigStore((s) => s.state?.config?.kvm !== undefined);
  return (
    <section className="panel" aria-labelledby="mt-h">
      <div className="panel-head">
        <h3 id="mt-h">Machine types</h3>
        <button type="button" className="small" data-focus="add" disabled={!canEdit || editing === ''} onClick={() => setEditing('')}>
          Add machine type
        </button>
      </div>
      {machineTypes.length === 0 && editing !== '' ? (
        <p className="empty">No machine type. Add one: a launch needs at least one (vCPUs, memory and disk size).</p>
      ) : (
        <table className="catalog-table">
          <thead>
            <tr>
              <th>Name</th><th>vCPUs</th><th>Memory</th><th>Disk</th><th>Default</th><th><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {machineTypes.map((m) =>
              editing === m.name ? (
                <CatalogEntryEditor
                  key={m.name}
                  kind="machineType"
                  initial={machineTypeForm(m)}
                  previousName={m.name}
                  colSpan={MT_COLUMNS}
                  onDone={(saved) => {
                    setEditing(null);
                    refocus('mt-h', `Edit ${saved ?? m.name}`);
                  }}
                />
              ) : (
                <tr key={m.name}>
                  <td>{m.name}</td>
                  <td>{m.vcpus}</td>
                  <td>{m.memoryMiB} MiB</td>
                  <td>{m.diskGiB} GiB</td>
                  <td>{m.isDefault ? <span className="badge default-badge">default</span> : ''}</td>
                  <td>
                    <RowActions kind="machineType" name={m.name} isDefault={m.isDefault} busy={busy} onEdit={() => setEditing(m.name)} onRemove={() => setRemoving(m.name)} />
                  </td>
                </tr>
              ),
            )}
            {editing === '' && (
              <CatalogEntryEditor
                kind="machineType"
                initial={NEW_MACHINE_TYPE_FORM}
                colSpan={MT_COLUMNS}
                onDone={(saved) => {
                  setEditing(null);
                  refocus('mt-h', saved ? `Edit ${saved}` : 'add');
                }}
              />
            )}
          </tbody>
        </table>
      )}
      {removing && <RemoveDialog kind="machineType" name={removing} onClose={() => setRemoving(undefined)} />}
    </section>
  );
}

const PRESENCE_TEXT: Record<ImagePresence['present'], string> = { yes: 'uploaded', no: 'not uploaded', unknown: 'unknown' };

function Presence({ hosts, image }: { hosts: ImagePresence[] | undefined; image: string }) {
  if (!hosts?.length) return <span className="meta">—</span>;
  return (
    <ul className="presence" aria-label="On hosts">
      {hosts.map((h) => (
        <li key={h.host} className={`presence-${h.present}`} title={h.volume ?? h.message ?? (h.present === 'no' ? 'The first launch there uploads it' : undefined)}>
          <span className="presence-host">{h.host}</span>: {PRESENCE_TEXT[h.present]}
          <ImageBake image={image} presence={h} />
        </li>
      ))}
    </ul>
  );
}

function Digest({ sha256, name }: { sha256: string; name: string }) {
  const toast = useUiStore((s) => s.toast);
  async function copy() {
    try {
      await navigator.clipboard.writeText(sha256);
      toast(`Copied the sha256 of ${name}.`);
    } catch (err) {
      toast(`Could not copy the digest: ${errorMessage(err)}`, 'error');
    }
  }
  return (
    <span className="digest">
      <code title={sha256} aria-label={`sha256 ${sha256}`}>
        {sha256.slice(0, 12)}…
      </code>
      <button type="button" className="small" aria-label={`Copy the sha256 of ${name}`} onClick={() => void copy()}>
        Copy
      </button>
    </span>
  );
}

function cacheText(i: ImageView): string {
  if (i.cache === 'cached') return 'cached, verified';
  if (i.cache === 'partial') return 'partly downloaded';
  return 'not downloaded';
}

function Images({ images }: { images: ImageView[] }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string>();
  const busy = useConfigBusy();
  const canEdit = useAppConfigStore((s) => s.state?.config?.kvm !== undefined);
  const [known, setKnown] = useState<string>();
  const add = (k?: string) => {
    setKnown(k);
    setEditing('');
  };
  return (
    <section className="panel" aria-labelledby="img-h">
      <div className="panel-head">
        <h3 id="img-h">Images</h3>
        <button type="button" className="small" data-focus="add" disabled={!canEdit || editing === ''} onClick={() => add()}>
          Add image
        </button>
      </div>
      <QuickAdd urls={images.map((i) => i.url)} disabled={!canEdit || editing === ''} onAdd={add} />
      {images.length === 0 && editing !== '' ? (
        <p className="empty">No image yet. Add one: choose a well-known image (Debian, Ubuntu, Rocky) or type a URL; its publisher&apos;s checksum file is read for you.</p>
      ) : (
        <table className="catalog-table">
          <thead>
            <tr>
              <th>Name</th><th>Source</th><th>sha256</th><th>Cache</th><th>Size</th><th>Hosts</th><th>Default</th><th><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {images.map((i) =>
              editing === i.name ? (
                <CatalogEntryEditor
                  key={i.name}
                  kind="image"
                  initial={imageForm(i)}
                  previousName={i.name}
                  colSpan={IMAGE_COLUMNS}
                  onDone={(saved) => {
                    setEditing(null);
                    refocus('img-h', `Edit ${saved ?? i.name}`);
                  }}
                />
              ) : (
                <tr key={i.name}>
                  <td>{i.name}</td>
                  <td className="image-source">
                    <span className="url" title={i.url}>{i.url}</span> <span className="badge">{i.format}</span>
                  </td>
                  <td><Digest sha256={i.sha256} name={i.name} /></td>
                  <td>
                    <span className={`badge cache-${i.cache}`}>{cacheText(i)}</span>
                    <ImagePull image={i} />
                  </td>
                  <td className="size">{i.sizeBytes !== undefined ? formatBytes(i.sizeBytes) : '—'}{i.totalBytes ? ` of ${formatBytes(i.totalBytes)}` : ''}</td>
                  <td><Presence hosts={i.hosts} image={i.name} /></td>
                  <td>{i.isDefault ? <span className="badge default-badge">default</span> : ''}</td>
                  <td>
                    <RowActions kind="image" name={i.name} isDefault={i.isDefault} busy={busy} onEdit={() => setEditing(i.name)} onRemove={() => setRemoving(i.name)} />
                  </td>
                </tr>
              ),
            )}
            {editing === '' && (
              <ImageAddForm
                colSpan={IMAGE_COLUMNS}
                known={known}
                onDone={(saved) => {
                  setEditing(null);
                  refocus('img-h', saved ? `Edit ${saved}` : 'add');
                }}
              />
            )}
          </tbody>
        </table>
      )}
      {removing && <RemoveDialog kind="image" name={removing} onClose={() => setRemoving(undefined)} />}
    </section>
  );
}

export function CatalogView() {
  const { machineTypes, images, catalogError } = useAppConfigStore(useShallow((s) => ({ machineTypes: s.machineTypes, images: s.images, catalogError: s.catalogError })));
  // Presence is asked only of connected hosts: read the catalog again when that set changes.
  const connected = useHostsStore((s) => s.hosts.filter((h) => h.state === 'connected').map((h) => h.name).join(','));
  const refreshCatalog = useAppConfigStore((s) => s.refreshCatalog);
  useEffect(() => {
    void refreshCatalog();
  }, [connected, refreshCatalog]);
  return (
    <section className="view" aria-labelledby="catalog-h">
      <div className="view-head">
        <h2 id="catalog-h">Images &amp; machine types</h2>
      </div>
      {catalogError && <p role="alert" className="error">Cannot list them: {catalogError}</p>}
      <MachineTypes machineTypes={machineTypes} />
      <Images images={images} />
      <UnusedBases />
    </section>
  );
}
