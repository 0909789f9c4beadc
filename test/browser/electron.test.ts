/**
 * The Electron lane: the real app window, through playwright's `_electron.launch`, with the
 * binary's fuses flipped as the package flips them where that changes what the window can
 * load (GrantFileProtocolExtraPrivileges off: a `file://` renderer would be blank; see
 * electron/shell/renderer-protocol.ts). Electron downloads its binary on install; where that
 * could not happen (no network), there is no binary: the test is then reported as skipped,
 * with the reason (npm test's summary lists it), never as passed.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FuseV1Options, FuseVersion, flipFuses } from '@electron/fuses';
import { _electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { APP_ORIGIN } from '../../electron/shell/renderer-protocol.js';
import { repoRoot } from '../support/dist.js';
import { testEnv } from '../support/env.js';
import { skipBecause } from '../support/skip.js';
import { VIEWPORT } from './chromium.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * The Electron binary, found without `require('electron')`: that module downloads the
 * binary when it is missing, and this lane must not reach the network.
 */
function electronBinary(): { path?: string; why?: string } {
  const pkg = join(repoRoot, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pkg)) return { why: 'the electron package is not installed' };
  if (!existsSync(pathFile))
    return { why: 'node_modules/electron has no binary (path.txt missing: its download did not happen)' };
  const binary = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? { path: binary } : { why: `${binary} is missing` };
}

/**
 * A copy of the binary's folder with the fuses that decide what the window may load flipped as
 * build/electron-builder.yml flips them. Not OnlyLoadAppFromAsar, asar integrity or the
 * inspect arguments: the app under test is the unpacked checkout, and playwright drives the
 * main process through the inspector.
 */
async function packagedLikeBinary(binary: string, into: string): Promise<string> {
  const dir = join(into, 'electron');
  cpSync(join(binary, '..'), dir, { recursive: true, verbatimSymlinks: true });
  const copy = join(dir, binary.slice(join(binary, '..').length + 1));
  await flipFuses(copy, {
    version: FuseVersion.V1,
    [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
    [FuseV1Options.EnableCookieEncryption]: true,
    [FuseV1Options.RunAsNode]: false,
  });
  return copy;
}

describe('electron: the app window', () => {
  it('opens visible on the Proxies view from app://, copies to the clipboard and shows the config (when an Electron binary is present)', async (ctx) => {
    const electron = electronBinary();
    if (!electron.path) skipBecause(ctx, `no Electron binary: ${electron.why ?? 'not found'}`);
    const env = testEnv();
    const base = tempDir('egress-electron-');
    const home = join(base, 'home');
    mkdirSync(home, { recursive: true });
    // One host, the test environment's libvirtd over its unix socket: no traffic leaves the machine.
    writeFileSync(
      join(home, 'config.yaml'),
      readFileSync(join(repoRoot, 'test/fixtures/config/canonical.yaml'), 'utf8').replace(
        /hosts:\n(?:\s+- [\s\S]*?)(?=\n {2}machineTypes:)/,
        `hosts:\n    - { name: local, address: local, socketPath: ${env.EGRESS_TEST_SOCKET}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`,
      ),
    );
    const app = await _electron.launch({
      executablePath: await packagedLikeBinary(electron.path, base),
      args: ['--no-sandbox', '--disable-gpu', repoRoot],
      cwd: repoRoot,
      env: { ...process.env, EGRESS_DESK_HOME: home } as Record<string, string>,
    });
    try {
      const win = await app.firstWindow();
      await win.setViewportSize(VIEWPORT);
      // Loaded from the app scheme, shown, on the Proxies view (the first time).
      await win.getByRole('heading', { name: 'Proxies', exact: true, level: 2 }).waitFor({ timeout: 30_000 });
      expect(win.url().startsWith(`${APP_ORIGIN}/`)).toBe(true);
      await expect
        .poll(() => app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.isVisible() ?? false), {
          timeout: 30_000,
        })
        .toBe(true);
      // The app opens on the last view (Proxies the first time): the Config view lists the config's hosts.
      await win
        .getByRole('navigation', { name: 'Views' })
        .getByRole('button', { name: 'Config' })
        .click({ timeout: 30_000 });
      await win.getByRole('heading', { name: 'Hosts' }).waitFor({ timeout: 30_000 });
      const hosts = win.getByRole('region', { name: 'Hosts' });
      await expect(hosts.getByRole('cell', { name: 'local', exact: true }).count()).resolves.toBe(1);
      // Copy goes through navigator.clipboard: the permission handler must allow it for the app's origin.
      const exportPanel = win.getByRole('region', { name: 'Export' });
      await exportPanel.getByRole('button', { name: 'Show export' }).click();
      const exported = await exportPanel
        .getByRole('textbox', { name: 'Exported config' })
        .inputValue({ timeout: 30_000 });
      await exportPanel.getByRole('button', { name: 'Copy' }).click();
      await expect
        .poll(() => app.evaluate(({ clipboard }) => clipboard.readText()), { timeout: 10_000 })
        .toBe(exported);
      const info = await win.evaluate("window.egress.invoke('app:info')");
      expect(info).toMatchObject({ ok: true, value: { frontEnd: 'electron', dataDir: home } });
      mkdirSync(join(repoRoot, 'test-results', 'screenshots'), { recursive: true });
      await win.screenshot({ path: join(repoRoot, 'test-results', 'screenshots', 'electron-config.png') });
    } finally {
      await app.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
