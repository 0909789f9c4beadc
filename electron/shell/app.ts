/**
 * The Electron shell: one window, the menu, the IPC handler, the app lifecycle. Everything
 * it serves comes from the Electron-free services through the router.
 */
import { BrowserWindow, Menu, app, dialog, ipcMain, protocol, session, shell } from 'electron';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENTS_CHANNEL, INVOKE_CHANNEL } from '../../shared/ipc.js';
import { createAppServices } from '../ipc/app-services.js';
import { ConsoleOwner } from '../ipc/console-owner.js';
import { logBackend } from '../ipc/backend-log.js';
import { messageOf } from '../../shared/errors.js';
import { writeFileAtomic } from '../services/config/atomic-write.js';
import { dataDir } from '../services/config/paths.js';
import { createLogger, logDir } from '../services/log/logger.js';
import { loadFailureUrl } from './load-failure.js';
import { menuTemplate } from './menu.js';
import { QUIT_DEADLINE_MS, closeWithin } from './quit-deadline.js';
import { APP_INDEX_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, handleAppRequest } from './renderer-protocol.js';
import { safeStorageSecretStore } from './safe-secret-store.js';
import { hardenSession, lockNavigation, secureWebPreferences } from './security.js';
import { rememberWindowState, restoredWindowOptions } from './window.js';

/** The built renderer, served to the window as app://egress-desk/ (renderer-protocol.ts says why not file://). */
const rendererDir = fileURLToPath(new URL('../../renderer/', import.meta.url));
const preloadScript = fileURLToPath(new URL('../../preload/preload.cjs', import.meta.url));

/** Chromium's net::ERR_ABORTED: a navigation replaced by another (a reload), not a failure. */
const ERR_ABORTED = -3;

export function startShell(): void {
  // Before ready: only a scheme registered now gets a real origin and a secure context.
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);
  const dir = dataDir();
  // The app and the CLI share one data directory; the path is set before the single-instance
  // lock is taken, because the lock lives in userData. Chromium's own profile (cookies,
  // localStorage, caches) gets a subfolder, so that it never mixes with the app's files.
  app.setPath('userData', dir);
  app.setPath('sessionData', join(dir, 'chromium'));
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  const log = createLogger({ dataDir: dir });
  log.info({ version: app.getVersion(), electron: process.versions.electron, dataDir: dir }, 'app: starting');
  // The monitor only observes: Electron still handles the exception as it would without it.
  process.on('uncaughtExceptionMonitor', (err) =>
    log.error({ err: err.message, stack: err.stack }, 'app: uncaught exception'),
  );
  // One OS-keychain store for SSH passphrases and proxy credentials alike.
  const keyring = safeStorageSecretStore(dir);
  const services = createAppServices(dir, 'electron', { version: app.getVersion(), secrets: keyring, keyring });
  // Host state changes, task outcomes and failed calls go to the log file (never a call's input).
  const { router } = logBackend(services.router, log);
  // The window's console sessions close when its page goes (reload) or the window closes.
  const consoles = new ConsoleOwner(router);
  const appUrl = APP_INDEX_URL;
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
    // Bounded: a task that ignores its cancellation must not keep a windowless app alive.
    void closeWithin(
      () => services.close(),
      QUIT_DEADLINE_MS,
      (what, err) =>
        log.warn(
          { err: err === undefined ? undefined : messageOf(err) },
          what === 'timed-out'
            ? `app: services still closing after ${QUIT_DEADLINE_MS} ms; quitting anyway`
            : 'app: closing the services failed',
        ),
    ).finally(() => {
      log.flush();
      app.quit();
    });
  });
  app.on('web-contents-created', (_e, contents) =>
    lockNavigation(contents, appUrl, (url) => void shell.openExternal(url)),
  );

  void app.whenReady().then(async () => {
    hardenSession(session.defaultSession);
    protocol.handle(APP_SCHEME, (request) => handleAppRequest(rendererDir, request));
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
          packaged: app.isPackaged,
        }),
      ),
    );
    const restored = await restoredWindowOptions(dir);
    window = new BrowserWindow({
      ...restored.options,
      show: false,
      title: 'Egress Desk',
      webPreferences: secureWebPreferences(preloadScript, app.isPackaged),
    });
    rememberWindowState(window, dir, log);
    // maximize() also shows the window: only once it has something to show.
    window.once('ready-to-show', () => (restored.maximized ? window?.maximize() : window?.show()));
    window.webContents.on('render-process-gone', (_e, details) =>
      log.error({ reason: details.reason, exitCode: details.exitCode }, "app: the window's renderer process ended"),
    );
    // A reload starts a new renderer: queue again until it has loaded (it then asks tasks:list).
    window.webContents.on('did-start-loading', () => {
      ready = false;
      void consoles.release();
    });
    // A failed load of the page itself (not a subresource, not an aborted navigation) would
    // leave the window hidden for ever: show it, with what happened, and log it.
    window.webContents.on('did-fail-load', (_e, code, description, url, isMainFrame) => {
      if (!isMainFrame || code === ERR_ABORTED || url.startsWith('data:')) return;
      log.error({ code, description, url }, 'app: the window could not load the renderer');
      void window?.loadURL(loadFailureUrl({ code, description, url }, logDir(dir)));
      window?.show();
    });
    window.webContents.on('did-finish-load', () => {
      ready = true;
      const pending = queued;
      queued = [];
      for (const [event, payload] of pending) send(event, payload);
    });
    // A rejection here is the failed load that did-fail-load already reported.
    await window.loadURL(appUrl).catch(() => undefined);
  });
}
