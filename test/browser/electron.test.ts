/**
 * The Electron lane: the same smoke test in the real app window, through playwright's
 * `_electron.launch`. Electron downloads its binary on install; where that could not happen
 * (no network), there is no binary: the test is then reported as skipped, with the reason
 * (npm test's summary lists it), never as passed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/dist.js';
import { skipBecause } from '../support/skip.js';
import { VIEWPORT } from './chromium.js';

/**
 * The Electron binary, found without `require('electron')`: that module downloads the
 * binary when it is missing, and this lane must not reach the network.
 */
function electronBinary(): { path?: string; why?: string } {
  const pkg = join(repoRoot, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pkg)) return { why: 'the electron package is not installed' };
  if (!existsSync(pathFile)) return { why: 'node_modules/electron has no binary (path.txt missing: its download did not happen)' };
  const binary = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? { path: binary } : { why: `${binary} is missing` };
}

describe('electron: the app window', () => {
  it('opens and shows the config (when an Electron binary is present)', async (ctx) => {
    const electron = electronBinary();
    if (!electron.path) skipBecause(ctx, `no Electron binary: ${electron.why ?? 'not found'}`);
    const home = join(mkdtempSync(join(tmpdir(), 'egress-electron-')), 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.yaml'), readFileSync(join(repoRoot, 'test/fixtures/config/canonical.yaml')));
    const app = await _electron.launch({
      executablePath: electron.path,
      args: ['--no-sandbox', '--disable-gpu', repoRoot],
      cwd: repoRoot,
      env: { ...process.env, EGRESS_DESK_HOME: home } as Record<string, string>,
    });
    try {
      const win = await app.firstWindow();
      await win.setViewportSize(VIEWPORT);
      // The app opens on the last view (Proxies the first time): the Config view lists the config's hosts.
      await win.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Config' }).click({ timeout: 30_000 });
      await win.getByRole('heading', { name: 'Hosts' }).waitFor({ timeout: 30_000 });
      const hosts = win.getByRole('region', { name: 'Hosts' });
      await expect(hosts.getByRole('cell', { name: 'local', exact: true }).count()).resolves.toBe(1);
      const info = await win.evaluate("window.egress.invoke('app:info')");
      expect(info).toMatchObject({ ok: true, value: { frontEnd: 'electron', dataDir: home } });
      mkdirSync(join(repoRoot, 'test-results', 'screenshots'), { recursive: true });
      await win.screenshot({ path: join(repoRoot, 'test-results', 'screenshots', 'electron-config.png') });
    } finally {
      await app.close();
    }
  });
});
