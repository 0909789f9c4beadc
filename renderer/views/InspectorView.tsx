/**
 * The inspector for one proxy, shown in place of the proxies table (ProxiesView): its
 * metadata, traffic (charts of the last hour), domain XML, seed and serial console in tabs. Opened by a row's Inspect button, Enter or a
 * double-click; Escape or Back returns to the table. The open proxy and tab are remembered
 * across a reload; `proxy:changed` events for it refresh it, and a removal says so.
 */
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useInspectorStore } from '../stores/inspector-store.js';
import { useUiStore } from '../stores/ui-store.js';
import { ConsolePanel } from './ConsolePanel.js';
import { OverviewPanel } from './inspector/OverviewPanel.js';
import { SeedPanel } from './inspector/SeedPanel.js';
import { type TabDef, Tabs } from './inspector/Tabs.js';
import { TrafficPanel } from './inspector/TrafficPanel.js';
import { XmlPanel } from './inspector/XmlPanel.js';
import { useHealthStore } from '../stores/health-store.js';
import type { ProxyInspectionView } from '../../shared/proxies.js';
import { type ProxyKey, recordKey } from '../../shared/proxy-key.js';

interface PanelProps {
  inspection: ProxyInspectionView;
  gone: boolean;
}

/** The tabs, in order. */
const TABS: ReadonlyArray<{ id: string; label: string; Panel: (p: PanelProps) => React.ReactNode }> = [
  { id: 'overview', label: 'Overview', Panel: OverviewPanel },
  // Rendered only while selected: leaving the tab ends its watch and its history.
  { id: 'traffic', label: 'Traffic', Panel: (p) => <TrafficPanel key={recordKey(p.inspection.proxy)} {...p} /> },
  { id: 'xml', label: 'Domain XML', Panel: XmlPanel },
  { id: 'seed', label: 'Seed', Panel: SeedPanel },
  // Rendered only while selected: leaving the tab closes the console session.
  { id: 'console', label: 'Console', Panel: ({ inspection }) => <ConsolePanel name={inspection.proxy.name} /> },
];

/** The backend's warning about the exit address, above every tab: the person should see it wherever they look. */
function ExitNotice({ statsKey, name }: { statsKey: ProxyKey; name: string }) {
  const health = useHealthStore((s) => s.health[statsKey]);
  if (!health?.exitWarning) return null;
  return (
    <div role="alert" className="notice notice-warn">
      <strong>Exit address of {name}:</strong> {health.exitWarning}
      {health.exitAddress && <> (now {health.exitAddress})</>}
    </div>
  );
}

/** True while the person is typing into a field, or in a terminal: Escape belongs to them then. */
function keepsEscape(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) ||
    target.closest('.xterm') !== null
  );
}

export function InspectorView() {
  const { target, close, setTab } = useUiStore(
    useShallow((s) => ({ target: s.inspected, close: s.closeInspector, setTab: s.setInspectorTab })),
  );
  const { inspection, loading, error, gone, refresh, follow } = useInspectorStore(
    useShallow((s) => ({
      inspection: s.inspection,
      loading: s.loading,
      error: s.error,
      gone: s.gone,
      refresh: s.refresh,
      follow: s.follow,
    })),
  );
  const name = target?.name;

  // Load when the target changes; follow proxy:changed events for it.
  useEffect(() => {
    if (!name) return;
    return follow();
  }, [name, follow]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || keepsEscape(e.target) || document.querySelector('dialog[open]'))
        return;
      e.preventDefault();
      close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [close]);

  if (!target) return null;
  const state = inspection?.proxy.state;
  const tabs: TabDef[] = inspection
    ? TABS.map((t) => ({ id: t.id, label: t.label, panel: () => <t.Panel inspection={inspection} gone={gone} /> }))
    : [];

  return (
    <section className="view view-inspector" aria-label={`Inspector for ${target.name}`}>
      <div className="view-head">
        <button type="button" aria-label="Back to proxies" aria-keyshortcuts="Escape" onClick={close}>
          ← Proxies
        </button>
        <h2 id="inspector-h">{target.name}</h2>
        {state && !gone && <span className={`badge state-${state}`}>{state}</span>}
        {inspection && <span className="meta">on {inspection.proxy.host}</span>}
        <div className="toolbar" role="toolbar" aria-label="Inspector actions">
          <span className="meta" aria-live="polite">
            {loading ? 'refreshing…' : ''}
          </span>
          <button type="button" disabled={loading || gone} onClick={() => void refresh()}>
            Refresh
          </button>
          <button type="button" aria-label="Close inspector" onClick={close}>
            Close
          </button>
        </div>
      </div>
      {gone && (
        <div role="alert" className="notice notice-error">
          <strong>{target.name} no longer exists.</strong> It was deleted (here, by another client or on the host).{' '}
          {inspection ? 'What is shown is its last known state.' : ''}{' '}
          <button type="button" className="small" onClick={close}>
            Back to proxies
          </button>
        </div>
      )}
      {error && (
        <div role="alert" className="notice notice-error">
          Cannot inspect {target.name}: {error}. Check its host in the Hosts view, then{' '}
          <button type="button" className="small" onClick={() => void refresh()}>
            try again
          </button>
        </div>
      )}
      {inspection && !gone && <ExitNotice statsKey={recordKey(inspection.proxy)} name={target.name} />}
      {!inspection && !gone && !error && <p className="meta">Loading {target.name}…</p>}
      {inspection && (
        <Tabs
          tabs={tabs}
          selected={target.tab}
          onSelect={setTab}
          label={`Sections of ${target.name}`}
          idPrefix="inspector"
        />
      )}
    </section>
  );
}
