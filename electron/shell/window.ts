/**
 * The app window's placement and icon: the rules live in the Electron-free
 * services/window/window-state.ts; this only feeds them Electron's screen and window.
 */
import { type BrowserWindow, type BrowserWindowConstructorOptions, screen } from 'electron';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../services/log/logger.js';
import {
  captureState,
  placeWindow,
  readWindowState,
  saveWindowState,
  windowStatePath,
} from '../services/window/window-state.js';
import { messageOf } from '../../shared/errors.js';

/** The 512 px icon from build/icons (packaged beside dist/, see build/electron-builder.yml). */
const LINUX_ICON = fileURLToPath(new URL('../../../build/icons/512x512.png', import.meta.url));

/** How long moves and resizes settle before the state is saved (it is saved on close too). */
const SAVE_DELAY_MS = 1000;

/**
 * The window options restored from the data directory (size, position; `maximized` to
 * apply after creation), clamped to the displays attached now, plus the icon on Linux
 * (macOS and Windows take it from the app bundle).
 */
export async function restoredWindowOptions(
  dataDir: string,
): Promise<{ options: BrowserWindowConstructorOptions; maximized: boolean }> {
  const saved = await readWindowState(windowStatePath(dataDir));
  const placement = placeWindow(
    saved,
    screen.getAllDisplays().map((d) => d.workArea),
    screen.getPrimaryDisplay().workArea,
  );
  const { maximized, ...bounds } = placement;
  const icon = process.platform === 'linux' && existsSync(LINUX_ICON) ? { icon: LINUX_ICON } : {};
  return { options: { ...bounds, ...icon }, maximized };
}

/** Saves the window's state when it settles after a move or resize, and when it closes. */
export function rememberWindowState(window: BrowserWindow, dataDir: string, log: Logger): void {
  const file = windowStatePath(dataDir);
  let timer: NodeJS.Timeout | undefined;
  const save = () => {
    clearTimeout(timer);
    if (window.isDestroyed()) return;
    const state = captureState(window.getNormalBounds(), window.isMaximized() || window.isFullScreen());
    saveWindowState(file, state).catch((err: unknown) =>
      log.warn({ err: messageOf(err), file }, 'window state not saved'),
    );
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(save, SAVE_DELAY_MS);
  };
  window.on('resize', later);
  window.on('move', later);
  window.on('maximize', later);
  window.on('unmaximize', later);
  window.on('close', save);
}
