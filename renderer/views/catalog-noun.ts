/** The word for each kind of catalog entry, as the catalog's dialogs and toasts say it. */
import type { CatalogKind } from '../stores/catalog-actions.js';

/** How an entry of each kind is named in what the panels say ("Removed the machine type small."). */
export const CATALOG_NOUN: Record<CatalogKind, string> = { machineType: 'machine type', image: 'image' };
