/**
 * The window's stores, started once by the app frame: each loads what it holds and follows
 * its events (sync.ts), and the desktop window's native menu reaches the ui store. When the
 * page has no bridge (opened outside the app), the frame says why and nothing starts.
 */
import { errorMessage } from '../format.js';
import { useAppConfigStore } from './app-config-store.js';
import { useGatewayStore } from './gateway-store.js';
import { useHealthStore } from './health-store.js';
import { useHostsStore } from './hosts-store.js';
import { useProxiesStore } from './proxies-store.js';
import { storeApi } from './store-api.js';
import { useTasksStore } from './tasks-store.js';
import { useUiStore } from './ui-store.js';

/** Starts every domain store; returns what stops them (the frame's unmount). */
export function startStores(): () => void {
  let api;
  try {
    api = storeApi();
  } catch (err) {
    useAppConfigStore.setState({ error: errorMessage(err) });
    return () => undefined;
  }
  const offs = [
    useAppConfigStore.getState().start(),
    useHostsStore.getState().start(),
    useProxiesStore.getState().start(),
    useTasksStore.getState().start(),
    useHealthStore.getState().start(),
    useGatewayStore.getState().start(),
    // The desktop window's native menu (File → Launch, Settings, Import, and notices).
    api.on('app:command', (c) => {
      const ui = useUiStore.getState();
      if (c.command === 'launch') {
        if (!document.querySelector('dialog[open]')) ui.setLaunchOpen(true);
      } else if (c.command === 'settings') ui.setView('settings');
      else if (c.command === 'import') ui.setImportDraft({ fileName: c.fileName, text: c.text, syntax: c.syntax });
      else ui.toast(c.text, c.kind);
    }),
  ];
  // After the config store follows config:changed: an edit during the first read is not lost.
  void useAppConfigStore.getState().load();
  return () => offs.forEach((off) => off());
}
