/**
 * build/electron-builder.yml as it is read (no Electron binary, no electron-builder run):
 * the deb keeps electron-builder's default dependencies, the fuses are flipped the way the
 * app relies on, and ssh2's native add-ons are neither rebuilt nor packaged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const configFile = join(repoRoot, 'build', 'electron-builder.yml');

interface BuilderConfig {
  files: string[];
  asar?: boolean;
  npmRebuild?: boolean;
  electronFuses: Record<string, boolean>;
  deb: { depends?: string[]; recommends?: string[] };
}

const config = parse(readFileSync(configFile, 'utf8')) as BuilderConfig;

/**
 * What electron-builder 26 installs with a deb when `depends` is not set
 * (getDefaultDepends in app-builder-lib/out/targets/FpmTarget.js).
 */
const DEFAULT_DEB_DEPENDS = [
  'libgtk-3-0',
  'libnotify4',
  'libnss3',
  'libxss1',
  'libxtst6',
  'xdg-utils',
  'libatspi2.0-0',
  'libuuid1',
  'libsecret-1-0',
];

describe('build/electron-builder.yml', () => {
  it("keeps electron-builder's default deb dependencies (GTK, NSS, libsecret…) and only recommends libvirt-clients", () => {
    // A `depends` list replaces the defaults: if one is ever needed, it must carry them all.
    if (config.deb.depends !== undefined)
      expect(config.deb.depends).toEqual(expect.arrayContaining(DEFAULT_DEB_DEPENDS));
    expect(config.deb.depends ?? DEFAULT_DEB_DEPENDS).not.toContain('libvirt-clients');
    expect(config.deb.recommends).toContain('libvirt-clients');
  });

  it('states the defaults it relies on as electron-builder has them (so that the test above means something)', () => {
    const fpm = readFileSync(
      join(repoRoot, 'node_modules', 'app-builder-lib', 'out', 'targets', 'FpmTarget.js'),
      'utf8',
    );
    expect(fpm).toContain(`return [${DEFAULT_DEB_DEPENDS.map((d) => `"${d}"`).join(', ')}];`);
    const scheme = JSON.parse(
      readFileSync(join(repoRoot, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8'),
    ) as {
      definitions: { DebOptions: { properties: Record<string, unknown> } };
    };
    expect(Object.keys(scheme.definitions.DebOptions.properties)).toEqual(
      expect.arrayContaining(['depends', 'recommends']),
    );
  });

  it('flips every fuse the app relies on', () => {
    expect(config.asar).toBe(true);
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it("neither rebuilds nor packages ssh2's optional native add-ons (ssh2 runs in plain JS)", () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.files).toEqual(
      expect.arrayContaining([
        '!**/node_modules/ssh2/lib/protocol/crypto/build{,/**/*}',
        '!**/node_modules/cpu-features/build{,/**/*}',
      ]),
    );
    // ssh2 loads both inside try/catch: without them it falls back to Node's crypto.
    const crypto = readFileSync(join(repoRoot, 'node_modules', 'ssh2', 'lib', 'protocol', 'crypto.js'), 'utf8');
    expect(crypto).toMatch(
      /try \{\s*binding = require\('\.\/crypto\/build\/Release\/sshcrypto\.node'\);[\s\S]*?\} catch \{\}/,
    );
    const constants = readFileSync(join(repoRoot, 'node_modules', 'ssh2', 'lib', 'protocol', 'constants.js'), 'utf8');
    expect(constants).toMatch(/try \{\s*cpuInfo = require\('cpu-features'\)\(\);\s*\} catch \{\}/);
  });
});
