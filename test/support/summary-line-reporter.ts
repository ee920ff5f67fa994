// Vitest reporter that ends the run's stdout with one machine-readable line,
// `N passed, N failed` (plus `, N skipped` when any were skipped), for CI to read.
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

interface RunCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const counts = countResults(testModules, unhandledErrors, reason);
    const parts = [`${counts.passed} passed`, `${counts.failed} failed`];
    if (counts.skipped > 0) {
      parts.push(`${counts.skipped} skipped`);
    }
    process.stdout.write(`${parts.join(', ')}\n`);
  }
}

function countResults(
  testModules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<SerializedError>,
  reason: TestRunEndReason,
): RunCounts {
  const counts: RunCounts = { passed: 0, failed: 0, skipped: 0 };

  for (const testModule of testModules) {
    let failedInModule = 0;
    for (const testCase of testModule.children.allTests()) {
      switch (testCase.result().state) {
        case 'passed':
          counts.passed += 1;
          break;
        case 'skipped':
          counts.skipped += 1;
          break;
        // A test still pending when the run is over never finished (worker crash, timeout
        // of the whole file, interrupted run), so it must not look like a success.
        case 'failed':
        case 'pending':
          counts.failed += 1;
          failedInModule += 1;
          break;
      }
    }
    // A file that failed to import, or whose beforeAll/afterAll threw, can report no failed
    // test at all; count the file itself so the breakage shows in the numbers.
    const moduleState = testModule.state();
    const moduleBroken = moduleState !== 'passed' && moduleState !== 'skipped';
    if (moduleBroken && failedInModule === 0) {
      counts.failed += 1;
    }
  }

  counts.failed += unhandledErrors.length;

  // Vitest decided the run failed (for example: no test files found) even though nothing
  // above was counted; the line must agree with the exit status.
  if (reason !== 'passed' && counts.failed === 0) {
    counts.failed = 1;
  }
  return counts;
}
