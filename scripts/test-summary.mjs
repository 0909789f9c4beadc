// Prints one closing line for the whole run from vitest's JSON report:
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
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const file = process.argv[2] ?? 'test-results/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.log(`Tests: 0 passed, 1 failed (no report at ${file}: ${err.message})`);
  process.exit(1);
}

const isSkip = (t) => t.status === 'skipped' || t.status === 'pending' || t.status === 'todo';
let passed = 0;
let failed = 0;
let skipped = 0;
/** Tests that never ran because their file or a beforeAll failed: counted as failed. */
const notRun = [];
/** Files that failed with no test failing or left unrun: a failed import, an afterAll. */
const failedFiles = [];
const skips = [];

for (const f of report.testResults ?? []) {
  const tests = f.assertionResults ?? [];
  const where = (t) => [relative(process.cwd(), f.name), ...(t.ancestorTitles ?? []), t.title].join(' > ');
  const fileFailed = f.status === 'failed';
  let failedHere = 0;
  for (const t of tests) {
    if (t.status === 'passed') passed++;
    else if (t.status === 'failed') failedHere++;
    else if (fileFailed && isSkip(t) && t.status !== 'todo' && !t.meta?.skipReason) notRun.push(`${where(t)}: ${f.message || 'see the log above'}`);
    else {
      skipped++;
      const reason = t.meta?.skipReason ?? (t.status === 'todo' ? 'todo' : 'no reason given');
      skips.push(`  skipped: ${where(t)}: ${reason}`);
    }
  }
  failed += failedHere;
  if (fileFailed && failedHere === 0 && !tests.some((t) => isSkip(t) && !t.meta?.skipReason && t.status !== 'todo')) {
    failedFiles.push(`  failed: ${relative(process.cwd(), f.name)}: ${f.message || 'outside any test (see the log above)'}`);
  }
}
failed += notRun.length + failedFiles.length;

const notes = [];
if (notRun.length) notes.push(`${notRun.length} not run because their file or a beforeAll failed`);
if (failedFiles.length) notes.push(`${failedFiles.length} test file${failedFiles.length === 1 ? '' : 's'} failed outside any test`);
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped${notes.length ? ` (${notes.join('; ')})` : ''}`);
for (const what of notRun) console.log(`  failed (not run, its file or a beforeAll failed): ${what}`);
for (const line of failedFiles) console.log(line);
for (const line of skips) console.log(line);
if (passed === 0 && failed === 0) console.log('  no test passed: a run in which nothing ran counts as failed');
process.exit(passed === 0 || failed > 0 || !report.success ? 1 : 0);
