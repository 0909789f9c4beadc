/** The proxies: a windowed table (ProxyWindow.tsx, windowing.ts) with filter, sort, multi-select and actions. */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { sortAndFilter } from '../proxy-sort.js';
import type { ProxyRecordView } from '../../shared/proxies.js';
import { ProxyClientSettingsDialog } from './ClientSettingsDialog.js';
import { actOn } from '../stores/proxy-actions.js';
import { useProxiesStore } from '../stores/proxies-store.js';
import { type ProxyKey, recordKey } from '../../shared/proxy-key.js';
import { inspecting as isInspecting, tableProxies, tableUi } from '../stores/slices.js';
import { type SortKey, useUiStore } from '../stores/ui-store.js';
import { useStatsStore } from '../stores/stats-store.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { OthersNote } from './OthersNote.js';
import { ReplaceDialog } from './ReplaceDialog.js';
import { groupRows, labelKeys, othersIn } from '../proxy-fleet.js';
import { LabelsDialog } from './LabelsDialog.js';
import type { RowActions } from './ProxyRow.js';
import { ProxyWindow } from './ProxyWindow.js';
import { InspectorView } from './InspectorView.js';
import { FleetSummary } from './FleetSummary.js';
import type { HealthState, ProxyHealth } from '../../shared/health.js';
import { healthStateOf } from '../fleet-summary.js';
import { useHealthStore } from '../stores/health-store.js';

const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'state', label: 'State' },
  { key: 'name', label: 'Name' },
  { key: 'host', label: 'Host' },
  { key: 'address', label: 'Addresses' },
  { key: 'port', label: 'Port' },
  { key: 'machineType', label: 'Machine type' },
  { key: 'image', label: 'Image' },
  { key: 'age', label: 'Age' },
];

/** While no health filter is on, the table does not follow the health figures at all. */
const NO_HEALTH: Readonly<Record<string, ProxyHealth>> = {};

/** The current time, every 30 s: for the age column only (the data comes from events). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * The Proxies view: the table, or the inspector of one proxy while one is open. The table
 * stays mounted (hidden) under the inspector, so its filter, selection and scroll position
 * are as they were when the person comes back.
 */
export function ProxiesView() {
  const inspecting = useUiStore(isInspecting);
  return (
    <>
      {inspecting && <InspectorView />}
      <ProxiesTable hidden={inspecting} />
    </>
  );
}

/** A dialog over the table: what it acts on is fixed as it opens (a labels dialog reads the live row by key). */
type TableDialog =
  | { kind: 'labels'; key: ProxyKey }
  | { kind: 'replace'; proxies: ProxyRecordView[] }
  | { kind: 'settings'; names: readonly string[] }
  | { kind: 'delete'; names: string[] }
  | { kind: 'stop'; names: string[] };

function ProxiesTable({ hidden }: { hidden: boolean }) {
  const { proxies, loaded, error, you } = useProxiesStore(useShallow(tableProxies));
  const [mineOnly, setMineOnly] = useState(false);
  /** The one dialog over the table (each is modal, so never two). */
  const [dialog, setDialog] = useState<TableDialog | null>(null);
  const closeDialog = () => setDialog(null);
  const {
    sort,
    groupBy,
    setGroupBy,
    returnTo,
    setSort,
    inspect: openInspector,
    setLaunchOpen,
    toast,
  } = useUiStore(useShallow(tableUi));
  const [filter, setFilter] = useState('');
  /** A count of the fleet summary, pressed: only the proxies in that health state are shown. */
  const [healthFilter, setHealthFilter] = useState<HealthState | null>(null);
  const health = useHealthStore((s) => (healthFilter ? s.health : NO_HEALTH));
  const [selected, setSelected] = useState<ReadonlySet<ProxyKey>>(new Set());
  const now = useNow();
  // While the table is shown the backend samples every 5 s (a lease the store renews); hidden, every minute.
  const watchStats = useStatsStore((s) => s.watch);
  useEffect(() => {
    if (hidden) return undefined;
    try {
      return watchStats();
    } catch {
      return undefined; // no bridge: the frame already says so (App.tsx), the cells show dashes
    }
  }, [hidden, watchStats]);
  const all = useMemo(() => Object.values(proxies), [proxies]);
  const keys = useMemo(() => all.map(recordKey), [all]);
  const rows = useMemo(() => {
    const sorted = sortAndFilter(all, filter, sort, you, mineOnly);
    return healthFilter ? sorted.filter((p) => healthStateOf(health[recordKey(p)]) === healthFilter) : sorted;
  }, [all, filter, sort, you, mineOnly, healthFilter, health]);

  // Grouped by a label key the fleet has; a remembered key no proxy has now groups nothing (and comes back with the label).
  const groupKeys = useMemo(() => labelKeys(all), [all]);
  const grouping = groupBy !== null && groupKeys.includes(groupBy) ? groupBy : null;
  const items = useMemo(() => groupRows(rows, grouping), [rows, grouping]);

  // Selection only holds proxies that still exist.
  const selection = useMemo(() => all.filter((p) => selected.has(recordKey(p))), [all, selected]);

  const head = useRef<HTMLDivElement>(null);

  // One object for every row, the same from render to render, so that rows stay memoised (ProxyRow).
  const actions = useMemo<RowActions>(
    () => ({
      toggle: (key) =>
        setSelected((s) => {
          const next = new Set(s);
          if (next.has(key)) next.delete(key);
          else next.add(key);
          return next;
        }),
      inspect: openInspector,
      labels: (key) => setDialog({ kind: 'labels', key }),
      replace: (p) => setDialog({ kind: 'replace', proxies: [p] }),
      settings: (name) => setDialog({ kind: 'settings', names: [name] }),
    }),
    [openInspector],
  );
  const allShownSelected = rows.length > 0 && rows.every((p) => selected.has(recordKey(p)));
  const toggleAll = () => setSelected(allShownSelected ? new Set() : new Set(rows.map(recordKey)));

  /** `force`: the person agreed to act on someone else's proxies, named in the dialog. */
  async function act(action: 'start' | 'stop' | 'delete', names: string[], force = false) {
    const failed = await actOn(action, names, force);
    if (failed.length) toast(`Could not ${action} ${failed.join('; ')}`, 'error');
    else
      toast(
        `${action === 'delete' ? 'Deleting' : action === 'start' ? 'Starting' : 'Stopping'} ${names.join(', ')} (see Tasks)`,
      );
  }

  const names = selection.map((p) => p.name);
  /** The proxies a delete, or a stop of someone else's, waits for the person to agree on (the dialog names the owners). */
  const confirming = dialog?.kind === 'delete' ? dialog.names : undefined;
  const stopping = dialog?.kind === 'stop' ? dialog.names : undefined;
  const labelling = dialog?.kind === 'labels' ? proxies[dialog.key] : undefined;
  const headerFor = (c: (typeof COLUMNS)[number]) => {
    const active = sort.key === c.key;
    return (
      <div
        role="columnheader"
        className={`col col-${c.key}`}
        key={c.key}
        aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
      >
        <button
          type="button"
          className="sort"
          aria-label={`Sort by ${c.label.toLowerCase()}${active ? (sort.dir === 'asc' ? ', ascending' : ', descending') : ''}`}
          onClick={() => setSort({ key: c.key, dir: active && sort.dir === 'asc' ? 'desc' : 'asc' })}
        >
          {c.label}
          <span aria-hidden="true" className="sort-mark">
            {active ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
          </span>
        </button>
      </div>
    );
  };

  return (
    <section className="view view-proxies" aria-labelledby="proxies-h" hidden={hidden}>
      <div className="view-head">
        <h2 id="proxies-h">Proxies</h2>
        <span className="meta">{loaded ? `${rows.length} of ${all.length}` : 'loading…'}</span>
        <div className="toolbar" role="toolbar" aria-label="Proxy actions">
          <input
            type="search"
            className="filter"
            aria-label="Filter proxies"
            placeholder="Filter by name, host, address, env=prod…"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
          <label className="group-by">
            Group by{' '}
            <select
              value={grouping ?? ''}
              onChange={(e) => setGroupBy(e.target.value === '' ? null : e.target.value)}
              disabled={!groupKeys.length}
              title={groupKeys.length ? undefined : 'No proxy has a label yet'}
            >
              <option value="">none</option>
              {groupKeys.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <label className="mine-toggle">
            <input type="checkbox" checked={mineOnly} onChange={(e) => setMineOnly(e.target.checked)} /> Mine
          </label>
          <button type="button" disabled={!names.length} onClick={() => void act('start', names)}>
            Start
          </button>
          <button
            type="button"
            disabled={!names.length}
            onClick={() =>
              othersIn(selection, you).length ? setDialog({ kind: 'stop', names }) : void act('stop', names)
            }
          >
            Stop
          </button>
          <button
            type="button"
            className="danger"
            disabled={!names.length}
            onClick={() => setDialog({ kind: 'delete', names })}
          >
            Delete
          </button>
          <button
            type="button"
            disabled={!names.length}
            onClick={() => setDialog({ kind: 'replace', proxies: selection })}
          >
            Replace
          </button>
          <button
            type="button"
            disabled={selection.length !== 1}
            title="Edit the labels of the one selected proxy"
            onClick={() => selection[0] && setDialog({ kind: 'labels', key: recordKey(selection[0]) })}
          >
            Labels
          </button>
          <button type="button" disabled={!names.length} onClick={() => setDialog({ kind: 'settings', names })}>
            Client settings
          </button>
          <button
            type="button"
            className="primary"
            aria-keyshortcuts="Control+N Meta+N"
            onClick={() => setLaunchOpen(true)}
          >
            Launch
          </button>
        </div>
      </div>
      {error && (
        <p role="alert" className="error">
          Cannot list the proxies: {error}. Check the Hosts view for the host that fails, then reload the window.
        </p>
      )}
      {(!loaded || all.length > 0) && (
        <FleetSummary keys={keys} filter={healthFilter} onFilter={setHealthFilter} waiting={!loaded} />
      )}
      {loaded && !error && all.length === 0 ? (
        <div className="empty-state">
          <h3>Launch your first proxy</h3>
          <p>
            No proxy runs on any host yet. A proxy is a small VM on one of your hosts that forwards HTTP(S) for the
            clients you allow.
          </p>
          <button type="button" className="primary" onClick={() => setLaunchOpen(true)}>
            Launch a proxy
          </button>
          <p className="meta">Shortcut: N, or Ctrl+N (⌘N on macOS) in the app window.</p>
        </div>
      ) : (
        <div role="table" className="grid" aria-label="Proxies" aria-rowcount={items.length + 1} aria-busy={!loaded}>
          <div role="rowgroup" className="grid-head" ref={head}>
            <div role="row" className="grid-row" aria-rowindex={1}>
              <div role="columnheader" className="col col-select">
                <input
                  type="checkbox"
                  aria-label="Select all shown proxies"
                  checked={allShownSelected}
                  onChange={toggleAll}
                  disabled={!rows.length}
                />
              </div>
              {COLUMNS.slice(0, 4).map(headerFor)}
              <div role="columnheader" className="col col-health">
                Health
              </div>
              <div role="columnheader" className="col col-traffic">
                Traffic in/out
              </div>
              <div role="columnheader" className="col col-cpu">
                CPU
              </div>
              {COLUMNS.slice(4).map(headerFor)}
              <div role="columnheader" className="col col-actions">
                Actions
              </div>
            </div>
          </div>
          <ProxyWindow
            items={items}
            selected={selected}
            you={you}
            now={now}
            actions={actions}
            columns={COLUMNS.length + 5}
            onScrollLeft={(left) => {
              if (head.current) head.current.scrollLeft = left; // the head scrolls sideways with the body
            }}
            returnTo={returnTo}
            hidden={hidden}
            placeholder={!loaded}
            after={
              loaded && rows.length === 0 && all.length > 0 ? (
                <p className="empty">
                  No proxy matches{' '}
                  {[
                    filter.trim() && `“${filter}”`,
                    healthFilter && `the health filter “${healthFilter}”`,
                    mineOnly && 'Mine',
                  ]
                    .filter(Boolean)
                    .join(' and ')}
                  . Clear the filter to see all {all.length}.
                </p>
              ) : undefined
            }
          />
        </div>
      )}
      {labelling && <LabelsDialog proxy={labelling} onClose={closeDialog} />}
      {dialog?.kind === 'replace' && <ReplaceDialog proxies={dialog.proxies} you={you} onClose={closeDialog} />}
      {dialog?.kind === 'settings' && <ProxyClientSettingsDialog names={dialog.names} onClose={closeDialog} />}
      {confirming && (
        <ConfirmDialog
          title={`Delete ${confirming.length === 1 ? confirming[0] : `${confirming.length} proxies`}?`}
          confirmLabel="Delete"
          onCancel={closeDialog}
          onConfirm={() => {
            const doomed = confirming;
            closeDialog();
            setSelected(new Set());
            // The dialog named the owners of someone else's proxies: confirming is their agreement.
            void act('delete', doomed, true);
          }}
        >
          <p>
            This destroys the VM{confirming.length === 1 ? '' : 's'} and {confirming.length === 1 ? 'its' : 'their'}{' '}
            disks on the host, and forgets the credentials. Clients using {confirming.length === 1 ? 'it' : 'them'} lose
            their proxy. It cannot be undone.
          </p>
          <ul>
            {confirming.map((n) => (
              <li key={n}>
                <code>{n}</code>
              </li>
            ))}
          </ul>
          <OthersNote
            others={othersIn(
              selection.filter((p) => confirming.includes(p.name)),
              you,
            )}
          />
        </ConfirmDialog>
      )}
      {stopping && (
        <ConfirmDialog
          title={`Stop someone else's ${stopping.length === 1 ? 'proxy' : 'proxies'}?`}
          confirmLabel="Stop"
          onCancel={closeDialog}
          onConfirm={() => {
            const names = stopping;
            closeDialog();
            void act('stop', names, true);
          }}
        >
          <OthersNote
            others={othersIn(
              selection.filter((p) => stopping.includes(p.name)),
              you,
            )}
          />
        </ConfirmDialog>
      )}
    </section>
  );
}
