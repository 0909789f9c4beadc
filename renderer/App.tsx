import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAppConfigStore } from './stores/app-config-store.js';
import { frameConfig, frameUi, runningTasks } from './stores/slices.js';
import { startStores } from './stores/start-stores.js';
import { useTasksStore } from './stores/tasks-store.js';
import { VIEWS, VIEW_LABELS, type View, useUiStore } from './stores/ui-store.js';
import { CatalogView } from './views/CatalogView.js';
import { ConfigView } from './views/ConfigView.js';
import { GatewayView } from './views/GatewayView.js';
import { HostsView } from './views/HostsView.js';
import { LaunchDialog } from './views/LaunchDialog.js';
import { ProxiesView } from './views/ProxiesView.js';
import { SettingsView } from './views/SettingsView.js';
import { TasksView } from './views/TasksView.js';

const VIEW_COMPONENTS: Record<View, () => React.JSX.Element> = {
  proxies: ProxiesView,
  gateway: GatewayView,
  hosts: HostsView,
  catalog: CatalogView,
  config: ConfigView,
  tasks: TasksView,
  settings: SettingsView,
};

/** True while the person is typing into a field: single-key shortcuts must not fire then. */
function typing(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  );
}

/**
 * Ctrl/Cmd+N opens the Launch dialog from anywhere (when no dialog is open). Browsers keep
 * Ctrl+N for a new window, so in serve mode a plain "n" (outside text fields) does the same.
 * Ctrl/Cmd+, (the usual key for an app's settings), or a plain "," the same way, shows Settings.
 */
function useShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const modified = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
      const plain = !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target);
      if ((modified || plain) && e.key.toLowerCase() === 'n') {
        e.preventDefault();
        if (!document.querySelector('dialog[open]')) useUiStore.getState().setLaunchOpen(true);
      } else if ((modified || plain) && e.key === ',') {
        e.preventDefault();
        if (!document.querySelector('dialog[open]')) useUiStore.getState().setView('settings');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** The notifications: a component of their own, so that a toast re-renders only them. */
function Toasts() {
  const toasts = useUiStore((s) => s.toasts);
  const dismiss = useUiStore((s) => s.dismiss);
  return (
    <div className="toasts" role="status" aria-live="polite" aria-label="Notifications">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`}>
          <span>{t.text}</span>
          <button type="button" className="small" aria-label="Dismiss notification" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

/** The app frame: header, the view list, the current view, the Launch dialog and toasts. */
export function App() {
  // Every store loads once and follows its events (stores/start-stores.ts); undone on unmount.
  useEffect(() => startStores(), []);
  useShortcuts();
  const { info, state, error } = useAppConfigStore(useShallow(frameConfig));
  const { view, setView, launchOpen, setLaunchOpen } = useUiStore(useShallow(frameUi));
  const running = useTasksStore(runningTasks);
  const Current = VIEW_COMPONENTS[view];
  return (
    <div className="app">
      <header className="app-header">
        <h1>Egress Desk</h1>
        {info && <span className="meta">version {info.version}</span>}
        {state && (
          <span className="meta">
            config <code>{state.path}</code>
            {state.created && ' (created on this first start)'}
          </span>
        )}
      </header>
      <nav className="sidebar" aria-label="Views">
        <ul>
          {VIEWS.map((v) => (
            <li key={v}>
              <button
                type="button"
                className="nav-item"
                aria-current={v === view ? 'page' : undefined}
                onClick={() => setView(v)}
              >
                {VIEW_LABELS[v]}
                {v === 'tasks' && running > 0 && (
                  // The count is for the eye; the button's name stays "Tasks" (the view says how many run).
                  <span className="count" aria-hidden="true" title={`${running} running`}>
                    {running}
                  </span>
                )}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content">
        {error && (
          <section role="alert" className="panel">
            <h2>Cannot reach the backend</h2>
            <p className="error">{error}</p>
            <p>Open this page through Egress Desk: the app window, or the link egress-desk serve prints.</p>
          </section>
        )}
        <Current />
      </main>
      {launchOpen && <LaunchDialog onClose={() => setLaunchOpen(false)} />}
      <Toasts />
    </div>
  );
}
