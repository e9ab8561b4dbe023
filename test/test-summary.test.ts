// scripts/test-summary.mjs, the "N passed, N failed, N skipped" line CI prints, on vitest JSON reports of each shape
// a run can end in. A loaded run once printed "3911 passed, 0 failed" for a run that failed in an afterAll hook.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'test-summary.mjs');
const dir = mkdtempSync(join(tmpdir(), 'flotilla-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Status = 'passed' | 'failed' | 'skipped';
const file = (status: Status, tests: Status[]) => ({
  status,
  assertionResults: tests.map((s) => ({ status: s })),
});

function summary(report: object): string {
  const path = join(dir, 'report.json');
  writeFileSync(path, JSON.stringify(report));
  const run = spawnSync(process.execPath, [script, path], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim();
}

describe('scripts/test-summary.mjs', () => {
  it.each([
    {
      name: 'every test passed',
      files: [file('passed', ['passed', 'passed']), file('passed', ['passed', 'skipped'])],
      counts: { numPassedTests: 3, numFailedTests: 0, numPendingTests: 1, numTodoTests: 0 },
      success: true,
      line: '3 passed, 0 failed, 1 skipped',
    },
    {
      name: 'failed tests are counted as vitest counts them',
      files: [file('failed', ['passed', 'failed', 'failed'])],
      counts: { numPassedTests: 1, numFailedTests: 2, numPendingTests: 0, numTodoTests: 1 },
      success: false,
      line: '1 passed, 2 failed, 1 skipped',
    },
    {
      name: 'a file whose afterAll failed, all its tests passed: one failure',
      files: [file('failed', ['passed', 'passed']), file('passed', ['passed'])],
      counts: { numPassedTests: 3, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0 },
      success: false,
      line: '3 passed, 1 failed, 0 skipped',
    },
    {
      name: 'a file that failed on import (no tests) beside a failed test elsewhere',
      files: [file('failed', []), file('failed', ['failed'])],
      counts: { numPassedTests: 0, numFailedTests: 1, numPendingTests: 0, numTodoTests: 0 },
      success: false,
      line: '0 passed, 2 failed, 0 skipped',
    },
    {
      name: 'an error nothing caught, every file passed: the run still reads failed',
      files: [file('passed', ['passed'])],
      counts: { numPassedTests: 1, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0 },
      success: false,
      line: '1 passed, 1 failed, 0 skipped',
    },
  ])('$name', ({ files, counts, success, line }) => {
    expect(summary({ ...counts, success, testResults: files })).toBe(line);
  });
});
