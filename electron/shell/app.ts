/**
 * The Electron shell: one window, the menu, the IPC handler, the app lifecycle. Everything
 * it serves comes from the Electron-free services through the router.
 */
import { BrowserWindow, Menu, app, dialog, ipcMain, session, shell } from 'electron';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EVENTS_CHANNEL, INVOKE_CHANNEL } from '../../shared/ipc.js';
import { createAppServices } from '../ipc/app-services.js';
import { ConsoleOwner } from '../ipc/console-owner.js';
import { logBackend } from '../ipc/backend-log.js';
import { writeFileAtomic } from '../services/config/atomic-write.js';
import { dataDir } from '../services/config/paths.js';
import { createLogger, logDir } from '../services/log/logger.js';
import { menuTemplate } from './menu.js';
import { safeStorageSecretStore } from './safe-secret-store.js';
import { hardenSession, lockNavigation, secureWebPreferences } from './security.js';
import { rememberWindowState, restoredWindowOptions } from './window.js';

const rendererIndex = fileURLToPath(new URL('../../renderer/index.html', import.meta.url));
const preloadScript = fileURLToPath(new URL('../../preload/preload.cjs', import.meta.url));

export function startShell(): void {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  const dir = dataDir();
  // The app and the CLI share one data directory.
  app.setPath('userData', dir);
  const log = createLogger({ dataDir: dir });
  log.info({ version: app.getVersion(), electron: process.versions.electron, dataDir: dir }, 'app: starting');
  // The monitor only observes: Electron still handles the exception as it would without it.
  process.on('uncaughtExceptionMonitor', (err) => log.error({ err: err.message, stack: err.stack }, 'app: uncaught exception'));
  // One OS-keychain store for SSH passphrases and proxy credentials alike.
  const keyring = safeStorageSecretStore(dir);
  const services = createAppServices(dir, 'electron', { version: app.getVersion(), secrets: keyring, keyring });
  // Host state changes, task outcomes and failed calls go to the log file (never a call's input).
  const { router } = logBackend(services.router, log);
  // The window's console sessions close when its page goes (reload) or the window closes.
  const consoles = new ConsoleOwner(router);
  const appUrl = pathToFileURL(rendererIndex).href;
  let window: BrowserWindow | undefined;
  // Events wait until the window has loaded (a renderer that is not listening yet would lose them).
  let ready = false;
  let queued: Array<[string, unknown]> = [];
  const send = (event: string, payload: unknown) => {
    if (!window || window.isDestroyed()) return;
    window.webContents.send(EVENTS_CHANNEL, event, payload);
  };
  services.app.subscribe((event, payload) => {
    if (ready) send(event, payload);
    else if (queued.push([event, payload]) > 1000) queued.shift();
  });

  ipcMain.handle(INVOKE_CHANNEL, (event, channel: unknown, input: unknown) => {
    // Only our own window's main frame may call the backend.
    if (!window || event.sender !== window.webContents || event.senderFrame !== window.webContents.mainFrame) {
      return { ok: false, error: { name: 'AccessDenied', message: 'calls are accepted only from the app window' } };
    }
    return consoles.invoke(channel, input);
  });

  app.on('second-instance', () => {
    if (window?.isMinimized()) window.restore();
    window?.focus();
  });
  app.on('window-all-closed', () => app.quit());
  let closing = false;
  app.on('will-quit', (event) => {
    if (closing) return;
    // Cancel running tasks and close the host connections before the process goes.
    closing = true;
    event.preventDefault();
    log.info('app: quitting');
    void services.close().finally(() => {
      log.flush();
      app.quit();
    });
  });
  app.on('web-contents-created', (_e, contents) => lockNavigation(contents, appUrl, (url) => void shell.openExternal(url)));

  void app.whenReady().then(async () => {
    hardenSession(session.defaultSession);
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        menuTemplate({
          showOpenDialog: (o) => (window ? dialog.showOpenDialog(window, o) : dialog.showOpenDialog(o)),
          showSaveDialog: (o) => (window ? dialog.showSaveDialog(window, o) : dialog.showSaveDialog(o)),
          readFile: (path) => readFile(path),
          writeFile: (path, text) => writeFileAtomic(path, text),
          exportConfig: (format) => services.app.config.export({ format }),
          command: (command) => (ready ? send('app:command', command) : queued.push(['app:command', command])),
          openLogs: () => void shell.openPath(logDir(dir)),
          openDataFolder: () => void shell.openPath(dir),
          defaultDir: app.getPath('documents'),
        }),
      ),
    );
    const restored = await restoredWindowOptions(dir);
    window = new BrowserWindow({ ...restored.options, show: false, title: 'Egress Desk', webPreferences: secureWebPreferences(preloadScript) });
    rememberWindowState(window, dir, log);
    // maximize() also shows the window: only once it has something to show.
    window.once('ready-to-show', () => (restored.maximized ? window?.maximize() : window?.show()));
    window.webContents.on('render-process-gone', (_e, details) => log.error({ reason: details.reason, exitCode: details.exitCode }, 'app: the window\'s renderer process ended'));
    // A reload starts a new renderer: queue again until it has loaded (it then asks tasks:list).
    window.webContents.on('did-start-loading', () => {
      ready = false;
      void consoles.release();
    });
    window.webContents.on('did-finish-load', () => {
      ready = true;
      const pending = queued;
      queued = [];
      for (const [event, payload] of pending) send(event, payload);
    });
    await window.loadFile(rendererIndex);
  });
}
