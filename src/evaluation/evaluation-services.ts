/**
 * The services that judge an assistant (docs/assistant-tests.md), built together because they
 * share the store, the test-case limits and the organization's models: test cases, test runs and
 * the proposals of the small fast model.
 */
import type { Settings } from '../config/settings.js';
import type { Store } from '../store/store.js';
import { TestCaseService } from './test-case-service.js';
import { TestRunService, type TestRunDependencies } from './test-run-service.js';
import { TestSuggestionService, type TestSuggestionDependencies } from './test-suggestion-service.js';

export interface EvaluationServices {
  /** An assistant's test cases and adversarial presets. */
  testCases: TestCaseService;
  /** Test runs through the real pipeline, their progress, stop and comparison. */
  testRuns: TestRunService;
  /** Test cases the small fast model proposes, never saved. */
  testSuggestions: TestSuggestionService;
}

/** What the runs and the proposals need beyond the store and the settings. */
export type EvaluationServicesOptions = { store: Store; settings: Settings } & Omit<TestRunDependencies, 'db' | 'dialect' | 'limits'> &
  Pick<TestSuggestionDependencies, 'passageSampleFor'>;

export function createEvaluationServices(options: EvaluationServicesOptions): EvaluationServices {
  const { store, settings, passageSampleFor, ...runDependencies } = options;
  const caseLimits = { turnsMaximum: settings.testCaseTurnsMaximum, turnCharactersMaximum: settings.testCaseTurnCharactersMaximum };
  return {
    testCases: new TestCaseService(store.db, settings.testCasesPerAssistantMaximum, caseLimits),
    testRuns: new TestRunService({
      ...runDependencies,
      db: store.db,
      dialect: store.dialect,
      limits: {
        concurrency: settings.testRunConcurrency,
        runsPerAssistantMaximum: settings.testRunsPerAssistantMaximum,
        judgeTimeoutMilliseconds: settings.testJudgeTimeoutMilliseconds,
        eventsPollMilliseconds: settings.testRunEventsPollMilliseconds,
        leaseMilliseconds: settings.testRunLeaseMilliseconds,
      },
    }),
    testSuggestions: new TestSuggestionService({
      db: store.db,
      registries: runDependencies.registries,
      runRecords: runDependencies.runRecords,
      providersFor: runDependencies.providersFor,
      smallFastModelFor: runDependencies.smallFastModelFor,
      passageSampleFor,
      caseLimits,
      limits: {
        suggestionsMaximum: settings.testSuggestionsMaximum,
        passageCharactersMaximum: settings.testSuggestionPassageCharactersMaximum,
        tokensMaximum: settings.testSuggestionTokensMaximum,
        timeoutMilliseconds: settings.testSuggestionTimeoutMilliseconds,
      },
    }),
  };
}
