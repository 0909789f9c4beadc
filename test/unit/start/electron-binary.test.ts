import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findElectronBinary } from '../../../electron/start/electron-binary.js';
import { tempDir } from '../../support/temp-dir.js';

/** A stand-in electron package: path.txt when `executable` is given, and the binary itself when `withBinary`. */
function fakePackage(executable?: string, withBinary = false): string {
  const dir = tempDir('egress-electron-pkg-');
  if (executable !== undefined) writeFileSync(join(dir, 'path.txt'), executable);
  if (executable !== undefined && withBinary) {
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', executable), '#!/bin/sh\n');
    chmodSync(join(dir, 'dist', executable), 0o755);
  }
  return dir;
}

describe('npm start: finding the Electron binary (without require, which would download it)', () => {
  it('finds dist/<path.txt> of the package', () => {
    const pkg = fakePackage('electron', true);
    expect(findElectronBinary(pkg, {})).toEqual({ found: true, path: join(pkg, 'dist', 'electron') });
  });

  it('says when the package is missing, has not downloaded the binary, or lost it', () => {
    expect(findElectronBinary(undefined, {})).toEqual({
      found: false,
      why: 'the electron package is not installed',
      downloadable: false,
    });
    expect(findElectronBinary(fakePackage(), {})).toEqual({
      found: false,
      why: 'the electron package has not downloaded it yet',
      downloadable: true,
    });
    const lost = fakePackage('electron');
    expect(findElectronBinary(lost, {})).toEqual({
      found: false,
      why: `${join(lost, 'dist', 'electron')} is missing`,
      downloadable: true,
    });
  });

  it('looks in ELECTRON_OVERRIDE_DIST_PATH instead of dist/ when it is set, as the package does', () => {
    const override = fakePackage('electron', true);
    const env = { ELECTRON_OVERRIDE_DIST_PATH: join(override, 'dist') };
    expect(findElectronBinary(fakePackage(), env)).toEqual({ found: true, path: join(override, 'dist', 'electron') });
    const empty = tempDir('egress-electron-none-');
    expect(findElectronBinary(fakePackage('electron', true), { ELECTRON_OVERRIDE_DIST_PATH: empty })).toEqual({
      found: false,
      why: `ELECTRON_OVERRIDE_DIST_PATH is set, but ${join(empty, 'electron')} does not exist`,
      downloadable: false,
    });
  });
});
