import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ConfigState } from '../shared/ipc.js';
import { backend } from './backend.js';
import { useAppConfigStore } from './stores/app-config-store.js';
import { errorMessage } from './format.js';
import { useHealthStore } from './stores/health-store.js';
import { useHostsStore } from './stores/hosts-store.js';
import { useProxiesStore } from './stores/proxies-store.js';
import { frameConfig, frameUi, runningTasks } from './stores/slices.js';
import { useTasksStore } from './stores/tasks-store.js';
import { VIEWS, VIEW_LABELS, type View, useUiStore } from './stores/ui-store.js';
import { CatalogView } from './views/CatalogView.js';
import { ConfigView } from './views/ConfigView.js';
import { HostsView } from './views/HostsView.js';
import { LaunchDialog } from './views/LaunchDialog.js';
import { ProxiesView } from './views/ProxiesView.js';
import { SettingsView } from './views/SettingsView.js';
import { TasksView } from './views/TasksView.js';

const VIEW_COMPONENTS: Record<View, () => React.JSX.Element> = {
  proxies: ProxiesView,
  hosts: HostsView,
  catalog: CatalogView,
  config: ConfigView,
  tasks: TasksView,
  settings: SettingsView,
};

/** Fills every domain store once and keeps it fresh with events; undone on unmount. */
function useBackend(): void {
  useEffect(() => {
    let api;
    try {
      api = backend();
    } catch (err) {
      useAppConfigStore.setState({ error: errorMessage(err) });
      return;
    }
    void useAppConfigStore.getState().load(api);
    const offs = [
      useHostsStore.getState().start(api),
      useProxiesStore.getState().start(api),
      useTasksStore.getState().start(api),
      useHealthStore.getState().start(api),
      // A pull changes no config (so no config:changed follows it) but the images' cache state: the catalog is read again.
      api.on('task:update', (t) => {
        if (t.kind === 'images:pull' && t.state === 'succeeded') void useAppConfigStore.getState().refreshCatalog(api);
      }),
      // The config file edited outside the app: what it holds now (or why it does not load) and
      // what depends on it; the app keeps working on the last good config when it is broken.
      api.on('config:changed', ({ by, ...state }) => {
        // The app's own writes reload where they are made (for now); this is for edits by hand.
        if (by === 'app') return;
        useAppConfigStore.setState({ state });
        if (state.config) {
          void useAppConfigStore.getState().refreshCatalog(api);
          void useHostsStore.getState().refresh(api);
          useUiStore.getState().toast('The config file was changed outside the app; the new config is in use.', 'info');
        } else useUiStore.getState().toast(`The config file was changed and does not load: ${configProblem(state)}. The app keeps using the last good config.`, 'error');
      }),
      // The desktop window's native menu (File → Launch, Import, Export).
      api.on('app:command', (c) => {
        const ui = useUiStore.getState();
        if (c.command === 'launch') {
          if (!document.querySelector('dialog[open]')) ui.setLaunchOpen(true);
        } else if (c.command === 'settings') ui.setView('settings');
        else if (c.command === 'import') ui.setImportDraft({ fileName: c.fileName, text: c.text, syntax: c.syntax });
        else ui.toast(c.text, c.kind);
      }),
    ];
    return () => offs.forEach((off) => off());
  }, []);
}

/** The first problem of a config that does not load, with its line: what a person fixes first. */
function configProblem(state: ConfigState): string {
  const issue = state.issues?.[0];
  if (!issue) return state.error ?? 'it cannot be read';
  const more = (state.issues?.length ?? 1) > 1 ? ` (and ${(state.issues?.length ?? 1) - 1} more, see Config)` : '';
  return `${issue.line !== undefined ? `line ${issue.line}: ` : ''}${issue.path}: ${issue.message}${more}`;
}

/** True while the person is typing into a field: single-key shortcuts must not fire then. */
function typing(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
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
  useBackend();
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
              <button type="button" className="nav-item" aria-current={v === view ? 'page' : undefined} onClick={() => setView(v)}>
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
