/**
 * The Electron main process ships as one bundle (vite.main.config.ts says why: no package is
 * resolved from inside app.asar at run time). Without an Electron binary:
 * - its imports are `electron` and Node's built-ins only, static or through `require`;
 * - run under plain Node with a stand-in `electron` (test/fixtures/electron-stub/), it
 *   evaluates every module, takes the single-instance lock only after setting its paths, and
 *   its window's URL is answered by the app scheme's handler with the page, the CSP header
 *   and a preload that exists: the paths it carries still name the right files.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_INDEX_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES } from '../../../electron/shell/renderer-protocol.js';
import { CONTENT_SECURITY_POLICY } from '../../../shared/csp.js';
import { repoRoot } from '../../support/dist.js';
import { tempDir } from '../../support/temp-dir.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string };
const bundle = join(repoRoot, pkg.main);
const home = tempDir('egress-main-bundle-');
afterAll(() => rmSync(home, { recursive: true, force: true }));

function built(): string {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` first (npm test does).`);
  return readFileSync(bundle, 'utf8');
}

const builtin = (name: string) => builtinModules.includes(name.replace(/^node:/, '')) || name.startsWith('node:');

describe('the bundled main process', () => {
  it('is what package.json starts, and imports nothing but electron and Node built-ins', () => {
    expect(pkg.main).toBe('dist/electron/bundle/main.js');
    const text = built();
    const imports = [
      ...text.matchAll(/^import\s[^'"]*?from\s*["']([^"']+)["'];?$/gm),
      ...text.matchAll(/^import\s*["']([^"']+)["'];?$/gm),
    ].map((m) => m[1]!);
    expect(imports).toContain('electron');
    expect(imports.filter((m) => m !== 'electron' && !builtin(m))).toEqual([]);
    // CommonJS code inside the bundle requires through createRequire: built-ins only.
    const required = [...text.matchAll(/__require\(["']([^"']+)["']\)/g)].map((m) => m[1]!);
    expect(required.length).toBeGreaterThan(0);
    expect([...new Set(required.filter((m) => !builtin(m)))]).toEqual([]);
    // No dynamic import of anything but a built-in (JSDoc types such as `import('./x.js')` aside).
    const code = text.split('\n').filter((line) => !/^\s*(\*|\/\/)|@type|@param|@returns/.test(line));
    expect(code.filter((line) => /\bimport\(\s*["'](?!node:)[^"']+["']\s*\)/.test(line))).toEqual([]);
  });

  it('runs under Node with a stand-in electron up to its window, which the app scheme answers', async () => {
    built();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', join(repoRoot, 'test/fixtures/electron-stub/loader.mjs'), bundle],
      {
        env: { ...process.env, EGRESS_DESK_HOME: home },
        timeout: 30_000,
      },
    );
    const seen = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(seen).toMatchObject({
      schemes: [{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }],
      handled: [APP_SCHEME],
      userData: home,
      sessionData: join(home, 'chromium'),
      lockAfterPaths: true,
      url: APP_INDEX_URL,
      status: 200,
      csp: CONTENT_SECURITY_POLICY,
      hasRoot: true,
      preloadExists: true,
    });
  });
});
