import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-line-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one, so one on a 2-core machine. Most test files
    // wait on child processes, browsers, sockets and PostgreSQL rather than compute, so three files
    // at a time keep both cores busy (docs/testing.md has the measured gain).
    maxWorkers: 3,
  },
});
