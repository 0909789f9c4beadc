/** The Proxies table's rows beyond a proxy's own cells: a group's header row, and the keys that move between proxy rows. */
import type { GroupedRow } from '../proxy-fleet.js';

/** A group's header: a row of the same windowed list (same height), spanning every column. */
export function GroupRow({
  item,
  rowIndex,
  columns,
}: {
  item: Extract<GroupedRow, { kind: 'group' }>;
  rowIndex: number;
  columns: number;
}) {
  const title = item.value === undefined ? `no ${item.key}` : `${item.key}=${item.value}`;
  return (
    <div role="row" className="grid-row group-row" data-group={title} aria-rowindex={rowIndex}>
      <div role="cell" className="col col-group" aria-colspan={columns}>
        <strong>{title}</strong> <span className="meta">{item.count === 1 ? '1 proxy' : `${item.count} proxies`}</span>
      </div>
    </div>
  );
}

/** The next proxy row from `row` (group header rows are passed over: they take no focus). */
function proxyRowFrom(row: Element, down: boolean): Element | null {
  let next = down ? row.nextElementSibling : row.previousElementSibling;
  while (next instanceof HTMLElement && next.dataset.group !== undefined)
    next = down ? next.nextElementSibling : next.previousElementSibling;
  return next;
}

/** Enter on a focused row opens the inspector (`inspect`, the row's own action, as a double-click does); the arrows move between rows. */
export function rowKeys(e: React.KeyboardEvent<HTMLDivElement>, name: string, inspect: (name: string) => void): void {
  if (e.target !== e.currentTarget) return;
  const row = e.currentTarget;
  if (e.key === 'Enter') {
    e.preventDefault();
    inspect(name);
  } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    // Moves between the rendered rows; the overscan keeps a neighbour in the DOM and focusing it scrolls.
    const next = proxyRowFrom(row, e.key === 'ArrowDown');
    if (next instanceof HTMLElement) {
      e.preventDefault();
      next.focus();
    }
  }
}
