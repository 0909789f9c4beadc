/**
 * The desktop window's native menu. File: Launch Proxy (Ctrl/Cmd+N), Import Config (the
 * file's text goes to the Config view's preview: nothing is replaced before the person
 * confirms there), Export (operator YAML, JSON, proxy list, PAC: written where the person
 * chooses, 0600, since a config names hosts and users). Help: Open Logs, Open Data Folder.
 *
 * Everything the menu touches is injected, so the template is tested without Electron.
 */
import type {
  MenuItemConstructorOptions,
  OpenDialogOptions,
  OpenDialogReturnValue,
  SaveDialogOptions,
  SaveDialogReturnValue,
} from 'electron';
import { type AppCommand, type ChannelOutput, type ExportFormat, MAX_IMPORT_TEXT } from '../../shared/ipc.js';
import { messageOf } from '../../shared/errors.js';

export interface MenuDeps {
  /** The native open and save dialogs (attached to the window by the caller). */
  showOpenDialog(options: OpenDialogOptions): Promise<OpenDialogReturnValue>;
  showSaveDialog(options: SaveDialogOptions): Promise<SaveDialogReturnValue>;
  readFile(path: string): Promise<Buffer>;
  /** Writes the whole file; the caller's implementation must create it 0600. */
  writeFile(path: string, text: string): Promise<void>;
  exportConfig(format: ExportFormat): Promise<ChannelOutput<'config:export'>>;
  /** Sends `app:command` to the renderer (queued until it listens). */
  command(command: AppCommand): void;
  openLogs(): void;
  openDataFolder(): void;
  /** The directory dialogs start in. */
  defaultDir: string;
  /**
   * `app.isPackaged`: a packaged build offers no DevTools (no menu item, so no
   * Ctrl+Shift+I either). They would let anyone at the keyboard run code with the
   * window's access to the backend, and a person using the app has no need for them.
   */
  packaged: boolean;
}

const EXPORTS: Array<{ format: ExportFormat; label: string; filters: { name: string; extensions: string[] }[] }> = [
  { format: 'operator', label: 'Operator YAML…', filters: [{ name: 'YAML', extensions: ['yaml', 'yml'] }] },
  { format: 'json', label: 'JSON…', filters: [{ name: 'JSON', extensions: ['json'] }] },
  { format: 'proxy-list', label: 'Proxy List…', filters: [{ name: 'Text', extensions: ['txt'] }] },
  { format: 'pac', label: 'PAC File…', filters: [{ name: 'Proxy auto-config', extensions: ['pac'] }] },
];

/** Asks for a config file and hands its text to the renderer's import preview. */
export async function importConfig(deps: MenuDeps): Promise<void> {
  const chosen = await deps.showOpenDialog({
    title: 'Import a config',
    defaultPath: deps.defaultDir,
    properties: ['openFile'],
    filters: [
      { name: 'Config (YAML or JSON)', extensions: ['yaml', 'yml', 'json'] },
      { name: 'All files', extensions: ['*'] },
    ],
  });
  const path = chosen.filePaths[0];
  if (chosen.canceled || !path) return;
  let bytes: Buffer;
  try {
    bytes = await deps.readFile(path);
  } catch (err) {
    deps.command({ command: 'notify', kind: 'error', text: `Cannot read ${path}: ${messageOf(err)}` });
    return;
  }
  if (bytes.length > MAX_IMPORT_TEXT) {
    deps.command({
      command: 'notify',
      kind: 'error',
      text: `${path} is ${bytes.length} bytes: a config is at most ${MAX_IMPORT_TEXT} bytes.`,
    });
    return;
  }
  deps.command({
    command: 'import',
    fileName: path,
    text: bytes.toString('utf8'),
    syntax: path.toLowerCase().endsWith('.json') ? 'json' : 'yaml',
  });
}

/** Exports in one format to a file the person chooses. */
export async function exportConfig(deps: MenuDeps, format: ExportFormat): Promise<void> {
  const entry = EXPORTS.find((e) => e.format === format)!;
  let exported: ChannelOutput<'config:export'>;
  try {
    exported = await deps.exportConfig(format);
  } catch (err) {
    deps.command({ command: 'notify', kind: 'error', text: `Cannot export: ${messageOf(err)}` });
    return;
  }
  const chosen = await deps.showSaveDialog({
    title: `Export ${entry.label.replace('…', '')}`,
    defaultPath: `${deps.defaultDir}/${exported.fileName}`,
    filters: entry.filters,
  });
  if (chosen.canceled || !chosen.filePath) return;
  try {
    await deps.writeFile(chosen.filePath, exported.text);
  } catch (err) {
    deps.command({ command: 'notify', kind: 'error', text: `Cannot write ${chosen.filePath}: ${messageOf(err)}` });
    return;
  }
  deps.command({ command: 'notify', kind: 'info', text: `Exported to ${chosen.filePath}` });
}

/**
 * The View menu, spelled out rather than Electron's `viewMenu` role, whose Toggle
 * Developer Tools cannot be left out: the same items, DevTools only when not packaged.
 */
function viewMenu(packaged: boolean): MenuItemConstructorOptions {
  return {
    label: '&View',
    submenu: [
      { role: 'reload' },
      { role: 'forceReload' },
      ...(packaged ? [] : [{ role: 'toggleDevTools' } as const]),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
}

/** The menu template; `isMac` adds the application menu macOS expects. */
export function menuTemplate(deps: MenuDeps, isMac = process.platform === 'darwin'): MenuItemConstructorOptions[] {
  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      { label: 'Launch Proxy…', accelerator: 'CmdOrCtrl+N', click: () => deps.command({ command: 'launch' }) },
      { type: 'separator' },
      { label: 'Settings…', accelerator: 'CmdOrCtrl+,', click: () => deps.command({ command: 'settings' }) },
      { type: 'separator' },
      { label: 'Import Config…', accelerator: 'CmdOrCtrl+O', click: () => void importConfig(deps) },
      {
        label: 'Export',
        submenu: EXPORTS.map((e) => ({ label: e.label, click: () => void exportConfig(deps, e.format) })),
      },
      { type: 'separator' },
      isMac ? { role: 'close' } : { role: 'quit' },
    ],
  };
  return [
    ...(isMac ? [{ role: 'appMenu' } as MenuItemConstructorOptions] : []),
    file,
    { role: 'editMenu' },
    viewMenu(deps.packaged),
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        { label: 'Open Logs', click: () => deps.openLogs() },
        { label: 'Open Data Folder', click: () => deps.openDataFolder() },
      ],
    },
  ];
}
