/**
 * tempDir (test/support/temp-dir.ts) with the lanes' setup file (test/setup/temp-dirs.ts): a
 * directory a test file makes is gone once that file has finished, after the file's own
 * afterAll hooks. Checked on a real vitest run of a tiny file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/dist.js';
import { tempDir } from '../../support/temp-dir.js';

describe('tempDir', () => {
  it('removes what a test file made when the file ends, after its own afterAll', () => {
    const dir = tempDir('egress-tempdir-run-');
    const record = join(dir, 'made.json');
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { globals: true, setupFiles: [${JSON.stringify(join(repoRoot, 'test/setup/temp-dirs.ts'))}] } };\n`,
    );
    writeFileSync(
      join(dir, 'probe.test.ts'),
      [
        `import { existsSync, writeFileSync } from 'node:fs';`,
        `import { tempDir } from ${JSON.stringify(join(repoRoot, 'test/support/temp-dir.ts'))};`,
        `const atLoad = tempDir('egress-tempdir-probe-');`,
        `let inTest = '';`,
        // The file's own afterAll still finds both: the removal comes after it.
        `afterAll(() => writeFileSync(${JSON.stringify(record)}, JSON.stringify({ atLoad, inTest, presentInAfterAll: existsSync(atLoad) && existsSync(inTest) })));`,
        `it('makes one', () => { inTest = tempDir('egress-tempdir-probe-'); expect(existsSync(inTest)).toBe(true); });`,
        '',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir },
      encoding: 'utf8',
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const made = JSON.parse(readFileSync(record, 'utf8')) as {
      atLoad: string;
      inTest: string;
      presentInAfterAll: boolean;
    };
    expect(made.presentInAfterAll).toBe(true);
    expect(made.atLoad).toMatch(/egress-tempdir-probe-/);
    expect(existsSync(made.atLoad)).toBe(false);
    expect(existsSync(made.inTest)).toBe(false);
  });
});
