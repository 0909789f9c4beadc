// Prints one closing line for the whole run from vitest's JSON report:
// "Tests: N passed, N failed, N skipped". Exits non-zero when nothing ran or anything failed.
import { readFileSync } from 'node:fs';

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
const suitesFailed = report.numFailedTestSuites ?? 0;
console.log(`Tests: ${passed} passed, ${report.numFailedTests ?? 0} failed, ${skipped} skipped${suitesFailed ? ` (${suitesFailed} test files failed to run)` : ''}`);
process.exit(passed === 0 || (report.numFailedTests ?? 0) > 0 || suitesFailed > 0 || !report.success ? 1 : 0);
