/**
 * What `npm run mutation` mutates, in groups, and which tests each group runs
 * (docs/mutation-testing.md). A group's tests are the ones that decide whether its code is right;
 * Stryker runs all of them for every mutant it cannot pin to single tests (code that runs while a
 * suite starts its server counts as such), so each list stays as short as its job allows.
 * Plain JavaScript so that both stryker.config.mjs and vitest.mutation.config.ts can read it.
 */

/** @type {Record<string, { mutate: string[]; tests: string[] }>} */
export const MUTATION_GROUPS = {
  permissions: {
    mutate: ['src/auth/permissions.ts'],
    tests: [
      'src/auth/permissions.test.ts',
      'src/auth/permissions-beyond-assistants.test.ts',
      'test/chat-is-refused-to-whoever-may-not-use-the-assistant.test.ts',
      'test/traces-are-read-only-by-the-owner-and-its-admins.test.ts',
    ],
  },
  'tool-loop': {
    mutate: ['src/pipeline/tool-loop/tool-loop.ts', 'src/pipeline/tool-loop/tool-call-runner.ts'],
    tests: [
      'src/pipeline/tool-loop/tool-loop.test.ts',
      'src/pipeline/tool-loop/tool-loop-keeps-every-detail.test.ts',
      'test/final-tool-round-runs-no-calls.test.ts',
      'test/function-calling-with-the-official-client.test.ts',
      'test/tool-calls-written-as-text-are-run.test.ts',
    ],
  },
  'template-rendering': {
    mutate: ['src/pipeline/templates/template-rendering.ts'],
    tests: ['src/pipeline/templates/template-rendering.test.ts', 'src/pipeline/templates/classic-prompt-rendering.test.ts'],
  },
  'knowledge-search': {
    mutate: [
      'src/retrieval/chunk-ranking.ts',
      'src/retrieval/reciprocal-rank-fusion.ts',
      'src/store/chunk-search-repository.ts',
      'src/retrieval/external-knowledge-server.ts',
      // The threshold filter of the knowledge-base service: its search method only (lines move when the file changes).
      'src/knowledge/knowledge-base-service.ts:243-257',
    ],
    tests: [
      'src/retrieval/reciprocal-rank-fusion.test.ts',
      'test/full-text-chunk-search.test.ts',
      'test/similarity-threshold-keeps-an-exact-match.test.ts',
      'test/knowledge-base-embeddings-and-hybrid-search.test.ts',
      'test/external-knowledge-server.test.ts',
    ],
  },
  'logger-redaction': {
    mutate: ['src/http/logger.ts'],
    tests: [
      'src/http/logger.test.ts',
      'test/logs-hide-long-and-token-like-query-parameter-names.test.ts',
      'test/logs-never-contain-secrets.test.ts',
      'test/trace-level-logs-never-contain-credentials.test.ts',
    ],
  },
  'text-tool-calls': {
    mutate: ['src/text-tool-calls/**/*.ts', '!src/text-tool-calls/**/*.test.ts'],
    tests: ['src/text-tool-calls/**/*.test.ts'],
  },
};

/** The group named by MERINO_MUTATION_GROUP; every group at once when it is unset. */
export function selectedMutationGroup(environment = process.env) {
  const name = environment.MERINO_MUTATION_GROUP?.trim();
  if (name === undefined || name === '') {
    const groups = Object.values(MUTATION_GROUPS);
    return { name: 'all', mutate: groups.flatMap((group) => group.mutate), tests: groups.flatMap((group) => group.tests) };
  }
  const group = MUTATION_GROUPS[name];
  if (group === undefined) throw new Error(`MERINO_MUTATION_GROUP "${name}" is not one of: ${Object.keys(MUTATION_GROUPS).join(', ')}.`);
  return { name, ...group };
}
