/**
 * `npm test`'s closing lines (scripts/test-summary.mjs) from a vitest JSON report: the
 * counts, and every skipped test with its reason, so a test that did not run is never
 * read as one that passed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/dist.js';

interface Result {
  title: string;
  status: 'passed' | 'failed' | 'skipped' | 'todo';
  meta?: { skipReason?: string };
}

function summary(results: Result[], extra: Record<string, unknown> = {}): { code: number | null; lines: string[] } {
  const count = (s: Result['status']) => results.filter((r) => r.status === s).length;
  const report = {
    numPassedTests: count('passed'),
    numFailedTests: count('failed'),
    numPendingTests: count('skipped'),
    numTodoTests: count('todo'),
    success: count('failed') === 0,
    testResults: [
      {
        name: join(repoRoot, 'test/browser/x.test.ts'),
        status: count('failed') ? 'failed' : 'passed',
        assertionResults: results.map((r) => ({ ancestorTitles: ['suite'], meta: {}, ...r })),
      },
    ],
    ...extra,
  };
  const file = join(mkdtempSync(join(tmpdir(), 'egress-summary-')), 'vitest.json');
  writeFileSync(file, JSON.stringify(report));
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/test-summary.mjs'), file], { cwd: repoRoot, encoding: 'utf8' });
  return { code: r.status, lines: r.stdout.trimEnd().split('\n') };
}

describe('test-summary.mjs', () => {
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
    expect(summary([{ title: 'a', status: 'passed' }, { title: 'b', status: 'failed' }])).toEqual({ code: 1, lines: ['Tests: 1 passed, 1 failed, 0 skipped'] });
    expect(summary([{ title: 'a', status: 'skipped', meta: { skipReason: 'why' } }])).toEqual({
      code: 1,
      lines: ['Tests: 0 passed, 0 failed, 1 skipped', '  skipped: test/browser/x.test.ts > suite > a: why', '  no test passed: a run in which nothing ran counts as failed'],
    });
  });
});
