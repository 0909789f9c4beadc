/**
 * The Proxies table's fleet rules, pure so the unit lane can hold them: the filter box's
 * `key=value` words (a label, matched exactly, as `-l` does on the command line), "mine",
 * and the proxies of a selection someone else launched (asked about before stop/delete).
 */
import { type Labels, type LaunchedBy, isMine, ownerText } from '../shared/fleet-meta.js';
import type { ProxyRecordView } from '../shared/proxies.js';

/** The row's text the filter's plain words search: its fields, addresses, labels and owner. */
export function searchText(p: ProxyRecordView): string {
  const labels = Object.entries(p.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return [
    p.name,
    p.host,
    p.state,
    p.machineType,
    p.image.name,
    String(p.port),
    ...p.addresses.map((a) => a.address),
    ...labels,
    p.launchedBy ? ownerText(p.launchedBy) : '',
  ]
    .join(' ')
    .toLowerCase();
}

/**
 * Whether a row passes the filter: every word must match; a `key=value` word matches the
 * label exactly (`env=prod` does not match `env=production`), any other word is a
 * case-insensitive substring of the row's text. With `mineOnly`, only proxies `you` launched.
 */
export function passesFilter(
  p: ProxyRecordView,
  filter: string,
  you: LaunchedBy | undefined,
  mineOnly: boolean,
): boolean {
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
export function othersIn(
  selection: readonly ProxyRecordView[],
  you: LaunchedBy | undefined,
): Array<{ name: string; owner: string }> {
  if (!you) return [];
  return selection
    .filter((p) => p.launchedBy !== undefined && !isMine(p.launchedBy, you))
    .map((p) => ({ name: p.name, owner: ownerText(p.launchedBy!) }));
}

/** A proxy's labels as the editor's text: `env=prod team=web`, keys sorted (what parseLabels reads back). */
export function labelsText(labels: Labels | undefined): string {
  return Object.entries(labels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

/**
 * What `proxies:label` must do to turn `current` into `wanted`: the pairs that are new or
 * changed, and the keys that are gone. Only the difference is sent, so an edit does not
 * overwrite a label someone else changed meanwhile on a key this edit left alone.
 */
export function labelEdit(current: Labels | undefined, wanted: Labels): { set: Labels; remove: string[] } {
  const before = current ?? {};
  const set = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => before[k] !== v));
  const remove = Object.keys(before).filter((k) => !Object.hasOwn(wanted, k));
  return { set, remove };
}

/** The label keys any proxy of the fleet has, sorted: the table's "Group by" choices. */
export function labelKeys(proxies: readonly ProxyRecordView[]): string[] {
  const keys = new Set<string>();
  for (const p of proxies) for (const k of Object.keys(p.labels ?? {})) keys.add(k);
  return [...keys].sort();
}

/** One row of a grouped table: a group's header, or a proxy. */
export type GroupedRow =
  | {
      kind: 'group';
      key: string;
      /** The label's value; undefined for the proxies without the key. */ value: string | undefined;
      count: number;
    }
  | { kind: 'proxy'; proxy: ProxyRecordView };

/**
 * The table's rows grouped by the label `key`: a header row per value (sorted, with the
 * number of proxies under it), then "no <key>" last, each followed by its proxies in the
 * order given (the table's sort). Headers are rows of the same flat list, so the windowing
 * (fixed row height) works unchanged. No key: the proxies as they are.
 */
export function groupRows(rows: readonly ProxyRecordView[], key: string | null): GroupedRow[] {
  if (key === null) return rows.map((proxy) => ({ kind: 'proxy', proxy }));
  const groups = new Map<string | undefined, ProxyRecordView[]>();
  for (const p of rows) {
    const value = p.labels?.[key];
    const list = groups.get(value);
    if (list) list.push(p);
    else groups.set(value, [p]);
  }
  const values: Array<string | undefined> = [...groups.keys()].filter((v): v is string => v !== undefined).sort();
  if (groups.has(undefined)) values.push(undefined);
  return values.flatMap((value) => {
    const members = groups.get(value) ?? [];
    return [
      { kind: 'group', key, value, count: members.length } as GroupedRow,
      ...members.map((proxy): GroupedRow => ({ kind: 'proxy', proxy })),
    ];
  });
}
