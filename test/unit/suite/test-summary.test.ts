/**
 * `npm test`'s closing lines (scripts/test-summary.mjs) from a vitest JSON report: the
 * counts, and every skipped test with its reason, so a test that did not run is never
 * read as one that passed.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/dist.js';
import { tempDir } from '../../support/temp-dir.js';

interface Result {
  title: string;
  status: 'passed' | 'failed' | 'skipped' | 'todo';
  meta?: { skipReason?: string };
}

/** `file`: where the results are (relative); `env`: the summary's environment (never the outer run's CI). */
function summary(
  results: Result[],
  extra: Record<string, unknown> = {},
  o: { file?: string; env?: Record<string, string>; times?: { startTime: number; endTime: number } } = {},
): { code: number | null; lines: string[] } {
  const count = (s: Result['status']) => results.filter((r) => r.status === s).length;
  const report = {
    numPassedTests: count('passed'),
    numFailedTests: count('failed'),
    numPendingTests: count('skipped'),
    numTodoTests: count('todo'),
    success: count('failed') === 0,
    testResults: [
      {
        name: join(repoRoot, o.file ?? 'test/browser/x.test.ts'),
        ...o.times,
        status: count('failed') ? 'failed' : 'passed',
        assertionResults: results.map((r) => ({ ancestorTitles: ['suite'], meta: {}, ...r })),
      },
    ],
    ...extra,
  };
  const file = join(tempDir('egress-summary-'), 'vitest.json');
  writeFileSync(file, JSON.stringify(report));
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/test-summary.mjs'), file], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...o.env },
  });
  return { code: r.status, lines: r.stdout.trimEnd().split('\n') };
}

describe('test-summary.mjs', () => {
  it('under CI, fails a skip anywhere but the Electron lane, with its reason', () => {
    const skip: Result[] = [
      { title: 'runs', status: 'passed' },
      { title: 'no wget', status: 'skipped', meta: { skipReason: 'wget is not installed' } },
    ];
    expect(summary(skip, {}, { env: { CI: 'true' } })).toEqual({
      code: 1,
      lines: [
        'Tests: 1 passed, 1 failed, 0 skipped (1 skipped under CI)',
        '  failed (skipped under CI, where only test/browser/electron.test.ts may be): test/browser/x.test.ts > suite > no wget: wget is not installed',
      ],
    });
    // Outside CI the same run passes, the skip listed with its reason.
    expect(summary(skip).code).toBe(0);
    // The Electron lane may be skipped under CI.
    expect(summary(skip, {}, { env: { CI: '1' }, file: 'test/browser/electron.test.ts' })).toEqual({
      code: 0,
      lines: [
        'Tests: 1 passed, 0 failed, 1 skipped',
        '  skipped: test/browser/electron.test.ts > suite > no wget: wget is not installed',
      ],
    });
  });

  it("reads the lanes' reports as one run, and a missing report is a failure", () => {
    const dir = tempDir('egress-summary-lanes-');
    const write = (name: string, file: string, status: Result['status']) => {
      const path = join(dir, name);
      writeFileSync(
        path,
        JSON.stringify({
          success: status !== 'failed',
          testResults: [
            {
              name: join(repoRoot, file),
              status: status === 'failed' ? 'failed' : 'passed',
              startTime: 0,
              endTime: 61_000,
              assertionResults: [{ ancestorTitles: [], title: 't', status, meta: {} }],
            },
          ],
        }),
      );
      return path;
    };
    const run = (...reports: string[]) => {
      const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/test-summary.mjs'), ...reports], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '' },
      });
      return { code: r.status, lines: r.stdout.trimEnd().split('\n') };
    };
    const unit = write('unit.json', 'test/unit/a.test.ts', 'passed');
    const libvirt = write('libvirt.json', 'test/libvirt/b.test.ts', 'passed');
    expect(run(unit, libvirt)).toEqual({
      code: 0,
      lines: ['Lanes (wall time): unit 1m01s, libvirt 1m01s', 'Tests: 2 passed, 0 failed, 0 skipped'],
    });
    const failing = write('guest.json', 'test/guest/c.test.ts', 'failed');
    expect(run(unit, failing).code).toBe(1);
    const missing = run(unit, join(dir, 'browser.json'));
    expect(missing.code).toBe(1);
    expect(missing.lines[1]).toBe('Tests: 1 passed, 1 failed, 0 skipped (1 report missing)');
    expect(missing.lines[2]).toMatch(/^ {2}failed: no report at .*browser\.json: ENOENT/);
  });

  it("prints each lane's wall time before the counts", () => {
    const r = summary(
      [{ title: 'a', status: 'passed' }],
      {},
      { file: 'test/guest/x.test.ts', times: { startTime: 1_000, endTime: 1_000 + 12 * 60_000 + 5_400 } },
    );
    expect(r.lines).toEqual(['Lanes (wall time): guest 12m05s', 'Tests: 1 passed, 0 failed, 0 skipped']);
  });

  it('counts skipped tests and lists each with its reason after the summary line', () => {
    const r = summary([
      { title: 'runs', status: 'passed' },
      { title: 'needs electron', status: 'skipped', meta: { skipReason: 'no Electron binary: path.txt missing' } },
      { title: 'skipped bare', status: 'skipped' },
      { title: 'later', status: 'todo' },
    ]);
    expect(r.lines).toEqual([
      'Tests: 1 passed, 0 failed, 3 skipped',
      '  skipped: test/browser/x.test.ts > suite > needs electron: no Electron binary: path.txt missing',
      '  skipped: test/browser/x.test.ts > suite > skipped bare: no reason given',
      '  skipped: test/browser/x.test.ts > suite > later: todo',
    ]);
    expect(r.code).toBe(0);
  });

  it('fails when anything failed, and when nothing passed', () => {
    expect(
      summary([
        { title: 'a', status: 'passed' },
        { title: 'b', status: 'failed' },
      ]),
    ).toEqual({ code: 1, lines: ['Tests: 1 passed, 1 failed, 0 skipped'] });
    expect(summary([{ title: 'a', status: 'skipped', meta: { skipReason: 'why' } }])).toEqual({
      code: 1,
      lines: [
        'Tests: 0 passed, 0 failed, 1 skipped',
        '  skipped: test/browser/x.test.ts > suite > a: why',
        '  no test passed: a run in which nothing ran counts as failed',
      ],
    });
  });
});

/**
 * The real thing: vitest itself runs two tiny files (globals on, so they import nothing
 * from a temp dir that has no node_modules) with the JSON reporter, as test/run.sh does.
 */
function vitestSummary(files: Record<string, string>): { code: number | null; lines: string[] } {
  const dir = tempDir('egress-summary-vitest-');
  writeFileSync(join(dir, 'vitest.config.mjs'), 'export default { test: { globals: true } };\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const vitest = join(repoRoot, 'node_modules/vitest/vitest.mjs');
  const report = join(dir, 'vitest.json');
  // A clean environment: the outer run's VITEST_* variables would make the inner one a worker.
  const env = { PATH: process.env.PATH ?? '', HOME: dir };
  spawnSync(process.execPath, [vitest, 'run', '--root', dir, '--reporter=json', `--outputFile.json=${report}`], {
    cwd: dir,
    env,
    encoding: 'utf8',
  });
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/test-summary.mjs'), report], {
    cwd: dir,
    env,
    encoding: 'utf8',
  });
  return { code: r.status, lines: r.stdout.trimEnd().split('\n') };
}

describe('test-summary.mjs on a real vitest report', () => {
  it('counts the tests of a suite whose beforeAll threw as failed, not skipped', () => {
    const r = vitestSummary({
      'hook.test.ts':
        "describe('suite', () => {\n  beforeAll(() => { throw new Error('boom'); });\n  it('one', () => {});\n  it('two', () => {});\n});\n",
      'top.test.ts': "beforeAll(() => { throw new Error('top-level boom'); });\nit('three', () => {});\n",
      'ok.test.ts':
        "it('passes', () => {});\nit('skips', (ctx) => { ctx.task.meta.skipReason = 'not here'; ctx.skip(); });\n",
    });
    expect(r.lines).toEqual([
      'Tests: 1 passed, 3 failed, 1 skipped (3 not run because their file or a beforeAll failed)',
      '  failed (not run, its file or a beforeAll failed): hook.test.ts > suite > one',
      '  failed (not run, its file or a beforeAll failed): hook.test.ts > suite > two',
      '  failed (not run, its file or a beforeAll failed): top.test.ts > three',
      '    top.test.ts: top-level boom',
      '  skipped: ok.test.ts > skips: not here',
    ]);
    expect(r.code).toBe(1);
  });

  it('counts a file whose afterAll threw as one failure', () => {
    const r = vitestSummary({
      'after.test.ts': "afterAll(() => { throw new Error('after boom'); });\nit('runs', () => {});\n",
    });
    expect(r.lines).toEqual([
      'Tests: 1 passed, 1 failed, 0 skipped (1 test file failed outside any test)',
      '  failed: after.test.ts: after boom',
    ]);
    expect(r.code).toBe(1);
  });
});
