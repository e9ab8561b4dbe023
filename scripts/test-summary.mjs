// The line scripts/test prints after the suite, from vitest's JSON report: "N passed, N failed, N skipped".
// A file that fails outside its tests (in a beforeAll or afterAll hook, or on import) fails none of them, so vitest's
// own count says 0 failed while the run fails: each such file counts as one failure here. An error nothing caught
// fails the run without failing any file, and counts as one too, so a failed run never reads "0 failed".
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const filesFailedOutsideTests = report.testResults.filter(
  (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
).length;
const counted = report.numFailedTests + filesFailedOutsideTests;
const failed = counted === 0 && !report.success ? 1 : counted;
console.log(
  `${report.numPassedTests} passed, ${failed} failed, ${report.numPendingTests + report.numTodoTests} skipped`,
);
