import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-line-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll gives up after 1 s by default. Under three files at a time on two cores a page can
    // take longer than that to render its first heading (CI failed once on it), and the timeout only
    // decides how long a failing test waits before it says so.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // A worker runs its files one after another in one process, loading Merino's modules once
    // rather than once a file: loading them was 1,910 of the suite's CPU seconds. Every file
    // still starts its own servers, stores and browsers, and no test relies on module state.
    isolate: false,
    // Vitest's default is one worker per core but one, so one on a 2-core machine. Most test files
    // wait on child processes, browsers, sockets and PostgreSQL rather than compute, so three files
    // at a time keep both cores busy (docs/testing.md has the measured gain).
    maxWorkers: 3,
  },
});
