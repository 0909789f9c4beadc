/**
 * One proxy's row in the Proxies table. Memoised: a row whose props did not change is not
 * rendered again (a health or traffic figure renders only its own cell, ProxyTraffic.tsx).
 * The window renders it into a slot that shows other proxies as the table scrolls
 * (ProxyWindow.tsx): `data-key` says which proxy the slot shows now.
 */
import { memo } from 'react';
import type { LaunchedBy } from '../../shared/fleet-meta.js';
import type { ProxyRecordView } from '../../shared/proxies.js';
import type { ProxyKey } from '../../shared/proxy-key.js';
import { copyProxyUrl } from '../copy-url.js';
import { formatAge } from '../format.js';
import { FleetTags } from './FleetTags.js';
import { rowKeys } from './ProxyRows.js';
import { CpuCell, HealthCell, TrafficCell } from './ProxyTraffic.js';

/** What a row's buttons and checkbox do: one stable object for every row, so that rows stay memoised. */
export interface RowActions {
  toggle(key: ProxyKey): void;
  inspect(name: string): void;
  labels(key: ProxyKey): void;
  replace(proxy: ProxyRecordView): void;
  settings(name: string): void;
}

export interface ProxyRowProps {
  proxy: ProxyRecordView;
  /** host/domain: the stats and health stores' key. */
  statsKey: ProxyKey;
  /** aria-rowindex: the head is row 1. */
  rowIndex: number;
  selected: boolean;
  you: LaunchedBy | undefined;
  now: number;
  actions: RowActions;
  /**
   * A stand-in row while the listing is on its way (PLACEHOLDER_PROXY, ProxyWindow.tsx): drawn
   * as grey bars, out of the accessibility tree and the tab order, not a row to any query.
   */
  placeholder?: boolean;
}

function StateBadge({ state }: { state: string }) {
  return <span className={`badge state-${state}`}>{state}</span>;
}

export const ProxyRow = memo(function ProxyRow({
  proxy: p,
  statsKey: key,
  rowIndex,
  selected,
  you,
  now,
  actions,
  placeholder = false,
}: ProxyRowProps) {
  return (
    <div
      role={placeholder ? undefined : 'row'}
      data-key={placeholder ? undefined : key}
      className={`grid-row${selected ? ' selected' : ''}${placeholder ? ' placeholder' : ''}`}
      aria-rowindex={placeholder ? undefined : rowIndex}
      aria-selected={placeholder ? undefined : selected}
      aria-hidden={placeholder || undefined}
      inert={placeholder}
      tabIndex={placeholder ? -1 : 0}
      onKeyDown={(e) => rowKeys(e, p.name, actions.inspect)}
      onDoubleClick={(e) => {
        if (!(e.target instanceof HTMLElement && e.target.closest('input, button'))) actions.inspect(p.name);
      }}
    >
      <div role="cell" className="col col-select">
        <input
          type="checkbox"
          aria-label={`Select ${p.name}`}
          checked={selected}
          onChange={() => actions.toggle(key)}
        />
      </div>
      <div role="cell" className="col col-state">
        <StateBadge state={p.state} />
        {p.replacing && (
          <span className="meta" title={`replaces ${p.replacing}, which serves until this one is ready`}>
            {' '}
            replacement
          </span>
        )}
      </div>
      <div role="cell" className="col col-name">
        {p.name}
        <FleetTags proxy={p} you={you} now={now} />
      </div>
      <div role="cell" className="col col-host">
        {p.host}
        {p.unknownHost && (
          <span
            className="meta"
            title={`its metadata names host ${p.unknownHost}, which is not an entry on this hypervisor now (renamed or removed)`}
          >
            {' '}
            (launched on {p.unknownHost})
          </span>
        )}
      </div>
      <div role="cell" className="col col-address">
        {p.addresses.length === 0 ? (
          <span className="meta" title={p.addressNote}>
            {p.state === 'shutoff' ? 'not running' : p.addressNote ? 'address unknown' : 'no address yet'}
          </span>
        ) : (
          p.addresses.map((a, i) => (
            // By position, not by address: a recycled slot then updates its spans' text instead of replacing them.
            <span key={i} className="addr" title={`learnt from ${a.source}`}>
              {a.address} <span className="meta">({a.source})</span>
            </span>
          ))
        )}
      </div>
      <div role="cell" className="col col-health">
        <HealthCell statsKey={key} />
      </div>
      <div role="cell" className="col col-traffic">
        <TrafficCell statsKey={key} name={p.name} />
      </div>
      <div role="cell" className="col col-cpu">
        <CpuCell statsKey={key} />
      </div>
      <div role="cell" className="col col-port">
        {p.port}
      </div>
      <div role="cell" className="col col-machineType">
        {p.machineType}
      </div>
      <div role="cell" className="col col-image">
        {p.image.name}
      </div>
      <div role="cell" className="col col-age">
        {formatAge(p.createdAt, now)}
      </div>
      <div role="cell" className="col col-actions">
        <button
          type="button"
          className="small"
          aria-label={`Edit labels of ${p.name}`}
          title="Labels: edit them, the VM keeps running"
          onClick={() => actions.labels(key)}
        >
          🏷
        </button>
        <button
          type="button"
          className="small"
          aria-label={`Replace ${p.name}`}
          title="Replace: a fresh VM, same name and credentials"
          disabled={p.replacing !== undefined}
          onClick={() => actions.replace(p)}
        >
          ↻
        </button>
        <button
          type="button"
          className="small"
          aria-label={`Copy URL of ${p.name}`}
          onClick={() => void copyProxyUrl(p.name)}
        >
          Copy URL
        </button>
        <button
          type="button"
          className="small"
          aria-label={`Client settings of ${p.name}`}
          onClick={() => actions.settings(p.name)}
        >
          Settings
        </button>
        <button
          type="button"
          className="small"
          aria-label={`Inspect ${p.name}`}
          data-inspect={p.name}
          onClick={() => actions.inspect(p.name)}
        >
          Inspect
        </button>
      </div>
    </div>
  );
});
