/** The native menu's template and actions, with the dialogs and the backend injected (no Electron needed). */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../../../electron/services/config/atomic-write.js';
import { type MenuDeps, exportConfig, importConfig, menuTemplate } from '../../../electron/shell/menu.js';
import { type AppCommand, MAX_IMPORT_TEXT } from '../../../shared/ipc.js';
import { tempDir } from '../../support/temp-dir.js';

function deps(over: Partial<MenuDeps> = {}): MenuDeps & { commands: AppCommand[] } {
  const commands: AppCommand[] = [];
  return {
    commands,
    showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
    showSaveDialog: async () => ({ canceled: true, filePath: '' }),
    readFile: (p) => readFile(p),
    writeFile: (p, t) => writeFileAtomic(p, t),
    exportConfig: async (format) => ({
      text: `exported ${format}\n`,
      fileName: format === 'pac' ? 'proxy.pac' : 'egress-desk.yaml',
      mediaType: 'text/plain',
    }),
    command: (c) => void commands.push(c),
    openLogs: vi.fn(),
    openDataFolder: vi.fn(),
    defaultDir: tmpdir(),
    packaged: false,
    ...over,
  };
}

const sub = (item: MenuItemConstructorOptions | undefined) => (item?.submenu ?? []) as MenuItemConstructorOptions[];
const click = (item: MenuItemConstructorOptions | undefined) => (item?.click as unknown as () => void)();

describe('native menu', () => {
  it('has File (Launch, Settings, Import, Export in four formats), Edit, View, Window and Help (Open Logs, Open Data Folder)', () => {
    const d = deps();
    const template = menuTemplate(d, false);
    const file = sub(template[0]);
    expect(file.filter((i) => i.label).map((i) => [i.label, i.accelerator])).toEqual([
      ['Launch Proxy…', 'CmdOrCtrl+N'],
      ['Settings…', 'CmdOrCtrl+,'],
      ['Import Config…', 'CmdOrCtrl+O'],
      ['Export', undefined],
    ]);
    expect(sub(file.find((i) => i.label === 'Export')).map((i) => i.label)).toEqual([
      'Operator YAML…',
      'JSON…',
      'Proxy List…',
      'PAC File…',
    ]);
    expect(template.map((i) => i.role ?? i.label)).toEqual(['&File', 'editMenu', '&View', 'windowMenu', 'help']);
    const help = sub(template[4]);
    click(help[0]);
    click(help[1]);
    expect(d.openLogs).toHaveBeenCalledOnce();
    expect(d.openDataFolder).toHaveBeenCalledOnce();
    click(file[0]);
    click(file.find((i) => i.label === 'Settings…'));
    expect(d.commands).toEqual([{ command: 'launch' }, { command: 'settings' }]);
    expect(menuTemplate(d, true)[0]!.role).toBe('appMenu');
  });

  it('imports by handing the file to the renderer, JSON by its extension, and nothing when cancelled', async () => {
    const dir = tempDir('egress-menu-');
    writeFileSync(join(dir, 'a.yaml'), 'type: kvm\n');
    writeFileSync(join(dir, 'b.JSON'), '{"type":"kvm"}');
    for (const name of ['a.yaml', 'b.JSON']) {
      const d = deps({ showOpenDialog: async () => ({ canceled: false, filePaths: [join(dir, name)] }) });
      await importConfig(d);
      expect(d.commands).toEqual([
        {
          command: 'import',
          fileName: join(dir, name),
          text: readFileSync(join(dir, name), 'utf8'),
          syntax: name === 'a.yaml' ? 'yaml' : 'json',
        },
      ]);
    }
    const cancelled = deps();
    await importConfig(cancelled);
    expect(cancelled.commands).toEqual([]);
  });

  it('says why a file cannot be imported: unreadable, or too big', async () => {
    const dir = tempDir('egress-menu-');
    writeFileSync(join(dir, 'big.yaml'), 'x'.repeat(MAX_IMPORT_TEXT + 1));
    const missing = deps({ showOpenDialog: async () => ({ canceled: false, filePaths: [join(dir, 'nope.yaml')] }) });
    await importConfig(missing);
    expect(missing.commands).toEqual([
      { command: 'notify', kind: 'error', text: expect.stringMatching(/^Cannot read .*nope\.yaml: .*ENOENT/) },
    ]);
    const big = deps({ showOpenDialog: async () => ({ canceled: false, filePaths: [join(dir, 'big.yaml')] }) });
    await importConfig(big);
    expect(big.commands).toEqual([
      {
        command: 'notify',
        kind: 'error',
        text: expect.stringContaining(`a config is at most ${MAX_IMPORT_TEXT} bytes`),
      },
    ]);
  });

  it('exports to the chosen file, 0600, and says where', async () => {
    const dir = tempDir('egress-menu-');
    const target = join(dir, 'out.pac');
    const offered: string[] = [];
    const d = deps({
      showSaveDialog: async (o) => {
        offered.push(String(o.defaultPath));
        return { canceled: false, filePath: target };
      },
    });
    await exportConfig(d, 'pac');
    expect(offered[0]).toMatch(/proxy\.pac$/);
    expect(readFileSync(target, 'utf8')).toBe('exported pac\n');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(d.commands).toEqual([{ command: 'notify', kind: 'info', text: `Exported to ${target}` }]);
  });

  it('reports an export the backend refuses, and writes nothing when the save is cancelled', async () => {
    const failing = deps({
      exportConfig: async () => {
        throw new Error('the config does not load');
      },
    });
    await exportConfig(failing, 'operator');
    expect(failing.commands).toEqual([
      { command: 'notify', kind: 'error', text: 'Cannot export: the config does not load' },
    ]);
    const write = vi.fn(async () => undefined);
    const cancelled = deps({ writeFile: write });
    await exportConfig(cancelled, 'json');
    expect(write).not.toHaveBeenCalled();
    expect(cancelled.commands).toEqual([]);
  });

  it("offers DevTools only when not packaged; the View menu is otherwise what Electron's viewMenu role gives", () => {
    /** Every role anywhere in the template, submenus included. */
    const roles = (items: MenuItemConstructorOptions[]): string[] =>
      items.flatMap((i) => [...(i.role ? [i.role] : []), ...roles(sub(i))]);
    const view = (packaged: boolean) =>
      sub(menuTemplate(deps({ packaged }), false).find((i) => i.label === '&View')).map((i) => i.role ?? i.type);
    const unpackaged = [
      'reload',
      'forceReload',
      'toggleDevTools',
      'separator',
      'resetZoom',
      'zoomIn',
      'zoomOut',
      'separator',
      'togglefullscreen',
    ];
    expect(view(false)).toEqual(unpackaged);
    // Packaged: the same items without DevTools.
    expect(view(true)).toEqual(unpackaged.filter((role) => role !== 'toggleDevTools'));
    for (const isMac of [false, true]) {
      // Nor a role that brings its own DevTools item.
      expect(roles(menuTemplate(deps({ packaged: true }), isMac))).not.toEqual(
        expect.arrayContaining(['toggleDevTools']),
      );
      expect(roles(menuTemplate(deps({ packaged: true }), isMac))).not.toEqual(expect.arrayContaining(['viewMenu']));
      expect(roles(menuTemplate(deps({ packaged: false }), isMac))).toContain('toggleDevTools');
    }
  });
});
