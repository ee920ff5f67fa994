/**
 * Stryker's configuration for `npm run mutation` (docs/mutation-testing.md; not part of npm test
 * or CI). scripts/mutation-testing.mjs runs it once per group of scripts/mutation-groups.mjs,
 * naming the group in MERINO_MUTATION_GROUP, so each group mutates its own files, runs only its
 * own tests (vitest.mutation.config.ts) and keeps its own report and incremental file.
 * Two runners at most: the machine has two cores and other work to do.
 */
import { selectedMutationGroup } from './scripts/mutation-groups.mjs';

const group = selectedMutationGroup();
const reportFolder = `reports/mutation/${group.name}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: group.mutate,
  ignorePatterns: ['dist', 'data', 'coverage', 'reports', 'bench', 'docs', 'web', '.stryker-tmp'],
  concurrency: 2,
  timeoutMS: 20_000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: `${reportFolder}/stryker-incremental.json`,
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `${reportFolder}/mutation.html` },
  jsonReporter: { fileName: `${reportFolder}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  thresholds: { high: 90, low: 85, break: null },
};
