/** Sorting and filtering the Proxies table's rows (pure, unit-tested through sortAndFilter). */
import type { ProxyRecordView } from '../shared/proxies.js';
import type { LaunchedBy } from '../shared/fleet-meta.js';
import type { Sort, SortKey } from './stores/ui-store.js';
import { passesFilter } from './proxy-fleet.js';
import { byNumericText, byText } from '../shared/collate.js';

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
      return byNumericText(firstAddress(a), firstAddress(b));
    case 'image':
      return byText(a.image.name, b.image.name);
    default:
      return byNumericText(String(a[key]), String(b[key]));
  }
}

/** The rows the filter keeps (`mineOnly`: launched by `you`), by the sort's column, then name and host. */
export function sortAndFilter(
  proxies: ProxyRecordView[],
  filter: string,
  sort: Sort,
  you?: LaunchedBy,
  mineOnly = false,
): ProxyRecordView[] {
  const shown =
    filter.trim() || mineOnly ? proxies.filter((p) => passesFilter(p, filter, you, mineOnly)) : proxies.slice();
  const sign = sort.dir === 'asc' ? 1 : -1;
  return shown.sort((a, b) => sign * compare(a, b, sort.key) || byText(a.name, b.name) || byText(a.host, b.host));
}
