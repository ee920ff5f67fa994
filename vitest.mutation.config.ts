/**
 * The vitest configuration Stryker runs for `npm run mutation` (stryker.config.mjs,
 * docs/mutation-testing.md): only the tests of the group named in MERINO_MUTATION_GROUP
 * (scripts/mutation-groups.mjs), on SQLite only and without starting PostgreSQL. Each mutant
 * re-runs these tests, and the mutated modules decide the same thing on either store, so a
 * second store would double the run without killing one more mutant. `npm test` still runs every
 * suite on both stores.
 */
import { defineConfig } from 'vitest/config';
import { selectedMutationGroup } from './scripts/mutation-groups.mjs';

export default defineConfig({
  test: {
    include: selectedMutationGroup().tests,
    env: { MERINO_TEST_DIALECTS: 'sqlite' },
    // Instrumented code runs several times slower; the parser's adversarial-input tests need the room.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
