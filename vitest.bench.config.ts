import { defineConfig } from 'vitest/config';

// Benchmarks print figures and are run on demand (`npm run bench`), never as part of `npm test`.
export default defineConfig({
  test: {
    include: ['bench/**/*.bench.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
