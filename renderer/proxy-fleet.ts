/**
 * The Proxies table's fleet rules, pure so the unit lane can hold them: the filter box's
 * `key=value` words (a label, matched exactly, as `-l` does on the command line), "mine",
 * and the proxies of a selection someone else launched (asked about before stop/delete).
 */
import { type LaunchedBy, isMine, ownerText } from '../shared/fleet-meta.js';
import type { ProxyRecordView } from '../shared/proxies.js';

/** The row's text the filter's plain words search: its fields, addresses, labels and owner. */
export function searchText(p: ProxyRecordView): string {
  const labels = Object.entries(p.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return [p.name, p.host, p.state, p.machineType, p.image.name, String(p.port), ...p.addresses.map((a) => a.address), ...labels, p.launchedBy ? ownerText(p.launchedBy) : '']
    .join(' ')
    .toLowerCase();
}

/**
 * Whether a row passes the filter: every word must match; a `key=value` word matches the
 * label exactly (`env=prod` does not match `env=production`), any other word is a
 * case-insensitive substring of the row's text. With `mineOnly`, only proxies `you` launched.
 */
export function passesFilter(p: ProxyRecordView, filter: string, you: LaunchedBy | undefined, mineOnly: boolean): boolean {
  if (mineOnly && !(you && isMine(p.launchedBy, you))) return false;
  const words = filter.split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const text = searchText(p);
  return words.every((w) => {
    const eq = w.indexOf('=');
    if (eq > 0) return p.labels?.[w.slice(0, eq)] === w.slice(eq + 1);
    return text.includes(w.toLowerCase());
  });
}

/** The proxies of `selection` someone else launched, each with its owner as text (`bob@ws-2`). */
export function othersIn(selection: readonly ProxyRecordView[], you: LaunchedBy | undefined): Array<{ name: string; owner: string }> {
  if (!you) return [];
  return selection.filter((p) => p.launchedBy !== undefined && !isMine(p.launchedBy, you)).map((p) => ({ name: p.name, owner: ownerText(p.launchedBy!) }));
}
