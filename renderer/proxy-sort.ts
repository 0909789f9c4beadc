/** Sorting and filtering the Proxies table's rows (pure, unit-tested through sortAndFilter). */
import type { ProxyRecordView } from '../shared/proxies.js';
import type { LaunchedBy } from '../shared/fleet-meta.js';
import type { Sort, SortKey } from './stores/ui-store.js';
import { passesFilter } from './proxy-fleet.js';

function firstAddress(p: ProxyRecordView): string {
  return p.addresses[0]?.address ?? '';
}

function compare(a: ProxyRecordView, b: ProxyRecordView, key: SortKey): number {
  switch (key) {
    case 'port':
      return a.port - b.port;
    case 'age':
      // Oldest first when ascending by age.
      return b.createdAt.localeCompare(a.createdAt);
    case 'address':
      return firstAddress(a).localeCompare(firstAddress(b), undefined, { numeric: true });
    case 'image':
      return a.image.name.localeCompare(b.image.name);
    default:
      return String(a[key]).localeCompare(String(b[key]), undefined, { numeric: true });
  }
}

/** The rows the filter keeps (`mineOnly`: launched by `you`), by the sort's column, then name and host. */
export function sortAndFilter(proxies: ProxyRecordView[], filter: string, sort: Sort, you?: LaunchedBy, mineOnly = false): ProxyRecordView[] {
  const shown = filter.trim() || mineOnly ? proxies.filter((p) => passesFilter(p, filter, you, mineOnly)) : proxies.slice();
  const sign = sort.dir === 'asc' ? 1 : -1;
  return shown.sort((a, b) => sign * compare(a, b, sort.key) || a.name.localeCompare(b.name) || a.host.localeCompare(b.host));
}
