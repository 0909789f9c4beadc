// Prints one closing line for the whole run from vitest's JSON report:
// "Tests: N passed, N failed, N skipped", then one line per skipped test with its reason,
// so that a test that did not run is never mistaken for one that passed. The reason is
// the `skipReason` that test/support/skip.ts puts in the test's meta (the JSON report
// keeps meta, not the note given to ctx.skip). Exits non-zero when nothing ran or
// anything failed.
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
const passed = report.numPassedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// A file that fails to load (syntax error, failing import) has no test results at all.
const brokenFiles = (report.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0).length;
const failed = (report.numFailedTests ?? 0) + brokenFiles;
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped${brokenFiles ? ` (${brokenFiles} test files failed to load)` : ''}`);

for (const f of report.testResults ?? []) {
  for (const t of f.assertionResults ?? []) {
    if (t.status === 'passed' || t.status === 'failed') continue;
    const reason = t.meta?.skipReason ?? (t.status === 'todo' ? 'todo' : 'no reason given');
    const where = [relative(process.cwd(), f.name), ...(t.ancestorTitles ?? []), t.title].join(' > ');
    console.log(`  skipped: ${where}: ${reason}`);
  }
}
if (passed === 0 && failed === 0) console.log('  no test passed: a run in which nothing ran counts as failed');
process.exit(passed === 0 || failed > 0 || !report.success ? 1 : 0);
