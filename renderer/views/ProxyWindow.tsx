/**
 * The Proxies table's body: the scrolling element and the window of rows in it
 * (windowing.ts). It keeps the scroll position to itself, so scrolling renders this
 * component only, never the table's toolbar, head or fleet summary; and it renders again only
 * when the window's first or last row changes, not at every pixel.
 *
 * Rows are keyed by their place in the window (slot 0 is the first rendered row), not by
 * proxy: as the table scrolls, each slot's elements stay where they are and show the next
 * proxy, instead of rows being removed at one end and created at the other. Bench (m) (a new
 * screenful every frame while figures arrive) showed that churn, not the figures, as the long
 * frames: style for every new element, and the garbage collections of the removed ones.
 * Keyed by proxy, rows would also have to move in the DOM to stay in order, which costs the
 * same as creating them. The one thing a slot must not keep is the focus: it follows its
 * proxy to the slot that shows it now (see the layout effect below).
 */
import { type ReactNode, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { LaunchedBy } from '../../shared/fleet-meta.js';
import type { GroupedRow } from '../proxy-fleet.js';
import { type ProxyKey, recordKey } from '../../shared/proxy-key.js';
import { placeholderRows } from '../placeholder-rows.js';
import { rowWindow, scrollToRow } from '../windowing.js';
import { type RowActions, ProxyRow } from './ProxyRow.js';
import { GroupRow } from './ProxyRows.js';

/** Must match `.grid-row` height in styles.css. */
export const ROW_HEIGHT = 36;
/**
 * Rows rendered beyond the viewport either side: a neighbour for arrow keys and a margin for a
 * fast scroll. Each costs DOM work every scroll frame (every slot shows another proxy once
 * the window moves): in bench (m) 4 a side was about a third of the rows drawn.
 */
const OVERSCAN = 2;

export interface ProxyWindowProps {
  items: readonly GroupedRow[];
  selected: ReadonlySet<ProxyKey>;
  you: LaunchedBy | undefined;
  now: number;
  actions: RowActions;
  /** Cells a group's header row spans. */
  columns: number;
  /** The body scrolled sideways: the head follows. */
  onScrollLeft(left: number): void;
  /** A proxy to bring into view and focus (its Inspect button): the one the inspector was closed on. */
  returnTo: string | undefined;
  /** The table is hidden under the inspector: nothing is scrolled or focused meanwhile. */
  hidden: boolean;
  /** Shown under the rows (the "no proxy matches" note). */
  after?: ReactNode;
  /** The listing has not arrived: a screenful of stand-in rows instead of `items` (placeholder-rows.ts). */
  placeholder?: boolean;
}

/** The focusable things of a row: the row itself (-1), then its checkbox and buttons in order. */
function controlsOf(row: HTMLElement): HTMLElement[] {
  return [...row.querySelectorAll<HTMLElement>('input, button')];
}

/** Where the focus was in the table: on which proxy's row, and which of its controls. */
interface FocusPlace {
  key: string;
  control: number;
}

export function ProxyWindow({
  items: listed,
  selected,
  you,
  now,
  actions,
  columns,
  onScrollLeft,
  returnTo,
  hidden,
  after,
  placeholder = false,
}: ProxyWindowProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  // As many stand-ins as a long fleet's first window has rows, so that each of its slots is there already.
  const standIns = placeholder ? Math.ceil(height / ROW_HEIGHT) + OVERSCAN : 0;
  const items = useMemo(() => (standIns ? placeholderRows(standIns) : listed), [standIns, listed]);
  const win = rowWindow({ count: items.length, rowHeight: ROW_HEIGHT, scrollTop: top, height, overscan: OVERSCAN });

  useEffect(() => {
    const el = scroller.current;
    if (!el) return undefined;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    setHeight(el.clientHeight);
    return () => observer.disconnect();
  }, []);

  /** Takes the element's scroll position, but renders only when it changes which rows are in the window. */
  const follow = (el: HTMLDivElement) => {
    const next = rowWindow({
      count: items.length,
      rowHeight: ROW_HEIGHT,
      scrollTop: el.scrollTop,
      height,
      overscan: OVERSCAN,
    });
    if (next.start !== win.start || next.end !== win.end) setTop(el.scrollTop);
  };
  const onScroll = (e: React.UIEvent<HTMLDivElement>) => {
    follow(e.currentTarget);
    onScrollLeft(e.currentTarget.scrollLeft);
  };

  // Back from the inspector: the proxy's row is scrolled into view and its Inspect button
  // gets the focus (once the window has rendered that row, hence the second effect).
  const returned = useRef<string | undefined>(undefined);
  const pendingFocus = useRef<{ name: string; until: number } | undefined>(undefined);
  useEffect(() => {
    const el = scroller.current;
    if (!returnTo) returned.current = undefined;
    if (!returnTo || hidden || !el || returned.current === returnTo) return;
    // Not listed yet (a reload: the list arrives after the view): tried again when the rows change.
    const index = listed.findIndex((it) => it.kind === 'proxy' && it.proxy.name === returnTo);
    if (index < 0) return;
    returned.current = returnTo;
    pendingFocus.current = { name: returnTo, until: Date.now() + 2000 };
    const to = scrollToRow({ index, rowHeight: ROW_HEIGHT, scrollTop: el.scrollTop, height: el.clientHeight });
    if (to !== el.scrollTop) {
      el.scrollTop = to;
      setTop(to);
    }
  }, [returnTo, hidden, listed]);
  useEffect(() => {
    const pending = pendingFocus.current;
    if (!pending) return;
    if (Date.now() > pending.until) pendingFocus.current = undefined;
    const button = scroller.current?.querySelector<HTMLElement>(`[data-inspect="${CSS.escape(pending.name)}"]`);
    if (!button) return;
    pendingFocus.current = undefined;
    button.focus();
  });

  // The focus stays with the proxy, not the slot: after a render that gave the focused slot to
  // another proxy, the same control of the slot that shows the focused proxy now takes it
  // (at the same place on screen, so without scrolling); a proxy scrolled out of the window
  // loses it, as a removed row would. Without this, Enter or Space would act on a proxy the
  // person never focused.
  const focusPlace = useRef<FocusPlace | undefined>(undefined);
  const onFocus = (e: React.FocusEvent<HTMLDivElement>) => {
    const row = e.target instanceof HTMLElement ? e.target.closest<HTMLElement>('[role=row][data-key]') : null;
    focusPlace.current =
      row?.dataset.key === undefined
        ? undefined
        : { key: row.dataset.key, control: row === e.target ? -1 : controlsOf(row).indexOf(e.target as HTMLElement) };
    // Focusing a row in the overscan scrolled the body already (focus() scrolls at once; the
    // scroll event waits for the next frame): the window follows now, within the key press,
    // so the next arrow key finds a neighbour even when presses come faster than frames.
    follow(e.currentTarget);
  };
  useLayoutEffect(() => {
    const place = focusPlace.current;
    const el = scroller.current;
    const active = document.activeElement;
    if (!place || !el || !(active instanceof HTMLElement) || !el.contains(active)) return;
    if (active.closest<HTMLElement>('[role=row][data-key]')?.dataset.key === place.key) return;
    const row = [...el.querySelectorAll<HTMLElement>('[role=row][data-key]')].find((r) => r.dataset.key === place.key);
    const target = row && (place.control < 0 ? row : controlsOf(row)[place.control]);
    if (target) target.focus({ preventScroll: true });
    else active.blur();
  });

  return (
    <div role="rowgroup" className="grid-body" ref={scroller} onScroll={onScroll} onFocus={onFocus}>
      {/* The spacer gives the full scroll height; only rows start…end are in the DOM. */}
      <div className="grid-spacer" style={{ height: win.total }}>
        <div className="grid-window" style={{ transform: `translateY(${win.offset}px)` }}>
          {items.slice(win.start, win.end).map((item, i) => {
            const index = win.start + i;
            // Keyed by slot, not by proxy: see slotOf.
            const slot = `slot-${i}`;
            if (item.kind === 'group')
              return <GroupRow key={slot} item={item} rowIndex={index + 2} columns={columns} />;
            const key = recordKey(item.proxy);
            return (
              <ProxyRow
                key={slot}
                proxy={item.proxy}
                statsKey={key}
                rowIndex={index + 2}
                selected={!placeholder && selected.has(key)}
                you={you}
                now={now}
                actions={actions}
                placeholder={placeholder}
              />
            );
          })}
        </div>
      </div>
      {after}
    </div>
  );
}
