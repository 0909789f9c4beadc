/**
 * The catalog's images: source, digest, cache state with a Pull, size, the base volume on
 * each host, and rows that turn into fields on Edit; Add image (with the well-known ones as
 * quick adds) and Remove.
 */
import { useState } from 'react';
import { imageForm } from '../../shared/catalog-entry-form.js';
import type { ImageView } from '../../shared/images-view.js';
import { formatBytes } from '../format.js';
import { CatalogPanel, type CatalogPanelSpec, catalogColSpan } from './CatalogPanel.js';
import { useCatalogPanel } from './catalog-panel-state.js';
import { CatalogRow } from './CatalogRow.js';
import { ImageAddForm, QuickAdd } from './ImageAddForm.js';
import { ImageDigest } from './ImageDigest.js';
import { ImageOnHosts } from './ImageOnHosts.js';
import { ImagePull } from './ImagePull.js';

const SPEC: CatalogPanelSpec = {
  kind: 'image',
  title: 'Images',
  addLabel: 'Add image',
  emptyText:
    "No image yet. Add one: choose a well-known image (Debian, Ubuntu, Rocky) or type a URL; its publisher's checksum file is read for you.",
  columns: ['Name', 'Source', 'sha256', 'Cache', 'Size', 'Hosts'],
};
const IMAGE_COLUMNS = catalogColSpan(SPEC);

function cacheText(i: ImageView): string {
  if (i.cache === 'cached') return 'cached, verified';
  if (i.cache === 'partial') return 'partly downloaded';
  return 'not downloaded';
}

/** The Images panel of the catalog view. */
export function ImagesPanel({ images }: { images: ImageView[] }) {
  const panel = useCatalogPanel('img-h');
  const [known, setKnown] = useState<string>();
  const add = (k?: string) => {
    setKnown(k);
    panel.setEditing('');
  };
  return (
    <CatalogPanel
      spec={SPEC}
      state={panel}
      onAdd={() => add()}
      above={<QuickAdd urls={images.map((i) => i.url)} disabled={!panel.canAdd} onAdd={add} />}
      count={images.length}
    >
      {images.map((i) => (
        <CatalogRow key={i.name} kind="image" entry={i} panel={panel} form={imageForm} colSpan={IMAGE_COLUMNS}>
          <td>{i.name}</td>
          <td className="image-source">
            <span className="url" title={i.url}>
              {i.url}
            </span>{' '}
            <span className="badge">{i.format}</span>
          </td>
          <td>
            <ImageDigest sha256={i.sha256} name={i.name} />
          </td>
          <td>
            <span className={`badge cache-${i.cache}`}>{cacheText(i)}</span>
            <ImagePull image={i} />
          </td>
          <td className="size">
            {i.sizeBytes !== undefined ? formatBytes(i.sizeBytes) : '—'}
            {i.totalBytes ? ` of ${formatBytes(i.totalBytes)}` : ''}
          </td>
          <td>
            <ImageOnHosts hosts={i.hosts} image={i.name} />
          </td>
        </CatalogRow>
      ))}
      {panel.editing === '' && (
        <ImageAddForm colSpan={IMAGE_COLUMNS} known={known} onDone={(saved) => panel.closeForm(saved)} />
      )}
    </CatalogPanel>
  );
}
