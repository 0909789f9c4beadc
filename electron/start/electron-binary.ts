/**
 * Where the Electron binary is, found the way the `electron` package's own index.js finds
 * it, but without requiring that module: when the binary is missing, `require('electron')`
 * tries to download it, which on an offline machine fails slowly and loudly.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The binary, or in one clause why there is none, and whether the package's own installer
 * (`install-electron`, which downloads it) can still fetch it into the package.
 */
export type ElectronBinary = { found: true; path: string } | { found: false; why: string; downloadable: boolean };

/**
 * Looks for the binary of the `electron` package at `packageDir` (undefined: the package is
 * not installed). Honours ELECTRON_OVERRIDE_DIST_PATH as the package does: the binary is then
 * looked for in that directory instead of the package's `dist/`.
 */
export function findElectronBinary(
  packageDir: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ElectronBinary {
  if (packageDir === undefined)
    return { found: false, why: 'the electron package is not installed', downloadable: false };
  const pathFile = join(packageDir, 'path.txt');
  // path.txt names the executable inside the unpacked archive; the install script writes it last.
  const executable = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const path = join(override, executable || 'electron');
    return existsSync(path)
      ? { found: true, path }
      : { found: false, why: `ELECTRON_OVERRIDE_DIST_PATH is set, but ${path} does not exist`, downloadable: false };
  }
  // Electron downloads its binary on first use, not on npm install: a fresh install has none yet.
  if (!executable) return { found: false, why: 'the electron package has not downloaded it yet', downloadable: true };
  const path = join(packageDir, 'dist', executable);
  return existsSync(path) ? { found: true, path } : { found: false, why: `${path} is missing`, downloadable: true };
}
