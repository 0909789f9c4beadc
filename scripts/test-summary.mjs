// Prints one closing line for the whole run from vitest's JSON report (or the lanes' reports):
// "Tests: N passed, N failed, N skipped", then one line per test that failed without
// running and one per skipped test with its reason, so that a test that did not run is
// never mistaken for one that passed. The reason is the `skipReason` that
// test/support/skip.ts puts in the test's meta (the JSON report keeps meta, not the note
// given to ctx.skip). Exits non-zero when nothing ran or anything failed.
//
// A beforeAll that throws makes vitest mark every test of its suite "skipped", exactly as
// it.skip would, and the JSON report drops the hook's error (it keeps only a file-level
// error in the file's `message`): only the file's status, "failed", tells. So in a failed
// file a skipped test without a skipReason (every deliberate skip here has one) counts as
// failed: it did not run because its file or a hook of its suite failed.
//
// Under CI (CI=true, 1 or yes) a skip is a failure unless its file may be skipped there:
// only the Electron lane, which needs a binary these machines cannot download. Anything
// else that could not run in CI is a broken environment, not a pass.
//
// Before the counts, one line with each lane's wall time (test/<lane>/: from its first
// test's start to its last test's end, so a lane's first beforeAll is not in it), so that
// a lane that grows shows in every run.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

// One report or several (test/run.sh runs the lanes as separate vitest runs): their files
// are read as one run's; a report that is missing or unreadable is a failure of its own.
const files = process.argv.length > 2 ? process.argv.slice(2) : ['test-results/vitest.json'];
const report = { success: true, testResults: [] };
const unreadable = [];
for (const file of files) {
  try {
    const one = JSON.parse(readFileSync(file, 'utf8'));
    report.success &&= one.success !== false;
    report.testResults.push(...(one.testResults ?? []));
  } catch (err) {
    unreadable.push(`  failed: no report at ${file}: ${err.message}`);
  }
}

/** The files whose tests may be skipped under CI (relative to the repository). */
const CI_MAY_SKIP = new Set(['test/browser/electron.test.ts']);
const underCi = /^(true|1|yes)$/i.test(process.env.CI ?? '');

const isSkip = (t) => t.status === 'skipped' || t.status === 'pending' || t.status === 'todo';
let passed = 0;
let failed = 0;
let notRun = 0;
let failedFiles = 0;
let skippedInCi = 0;
/** lane → [first start, last end] in ms. */
const lanes = new Map();
/** What failed without a test failing (listed first), then what was skipped and why. */
const failures = [];
const skips = [];

for (const f of report.testResults ?? []) {
  const tests = f.assertionResults ?? [];
  const file = relative(process.cwd(), f.name);
  const where = (t) => [file, ...(t.ancestorTitles ?? []), t.title].join(' > ');
  const fileFailed = f.status === 'failed';
  const unrun = tests.filter((t) => fileFailed && isSkip(t) && t.status !== 'todo' && !t.meta?.skipReason);
  const lane = /^test\/([^/]+)\//.exec(file)?.[1];
  // A file none of whose tests ran has the run's start as its own: it says nothing of its lane.
  if (
    lane &&
    Number.isFinite(f.startTime) &&
    Number.isFinite(f.endTime) &&
    tests.some((t) => t.status === 'passed' || t.status === 'failed')
  ) {
    const [start, end] = lanes.get(lane) ?? [Infinity, -Infinity];
    lanes.set(lane, [Math.min(start, f.startTime), Math.max(end, f.endTime)]);
  }
  for (const t of tests) {
    if (t.status === 'passed') passed++;
    else if (t.status === 'failed') failed++;
    else if (!unrun.includes(t)) {
      const reason = t.meta?.skipReason ?? (t.status === 'todo' ? 'todo' : 'no reason given');
      if (underCi && !CI_MAY_SKIP.has(file)) {
        skippedInCi++;
        failures.push(
          `  failed (skipped under CI, where only ${[...CI_MAY_SKIP].join(', ')} may be): ${where(t)}: ${reason}`,
        );
      } else skips.push(`  skipped: ${where(t)}: ${reason}`);
    }
  }
  for (const t of unrun) failures.push(`  failed (not run, its file or a beforeAll failed): ${where(t)}`);
  // The file's own error (a top-level beforeAll's, a failed import's, an afterAll's), once;
  // a describe's beforeAll error is only in the log above.
  if (unrun.length && f.message) failures.push(`    ${file}: ${f.message}`);
  notRun += unrun.length;
  if (fileFailed && !unrun.length && !tests.some((t) => t.status === 'failed')) {
    failedFiles++;
    failures.push(`  failed: ${file}: ${f.message || 'outside any test (see the log above)'}`);
  }
}
failed += notRun + failedFiles + skippedInCi + unreadable.length;
failures.unshift(...unreadable);
const skipped = skips.length;

const notes = [];
if (notRun) notes.push(`${notRun} not run because their file or a beforeAll failed`);
if (unreadable.length) notes.push(`${unreadable.length} report${unreadable.length === 1 ? '' : 's'} missing`);
if (skippedInCi) notes.push(`${skippedInCi} skipped under CI`);
if (failedFiles) notes.push(`${failedFiles} test file${failedFiles === 1 ? '' : 's'} failed outside any test`);
const minutes = (ms) => `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
if (lanes.size)
  console.log(
    `Lanes (wall time): ${[...lanes].map(([lane, [start, end]]) => `${lane} ${minutes(end - start)}`).join(', ')}`,
  );
console.log(
  `Tests: ${passed} passed, ${failed} failed, ${skipped} skipped${notes.length ? ` (${notes.join('; ')})` : ''}`,
);
for (const line of [...failures, ...skips]) console.log(line);
if (passed === 0 && failed === 0) console.log('  no test passed: a run in which nothing ran counts as failed');
process.exit(passed === 0 || failed > 0 || !report.success ? 1 : 0);
