/**
 * An expectation and a verdict in the teacher's words, for the case list and the results: what
 * the answer is expected to do ("Contains “mitosis”"), and pass, fail, mixed, not judged or error.
 */
import type { Expectation, TestResult } from '$lib/api/assistant-tests';
import { t } from '$lib/i18n/translate.svelte';
import type { TestCaseChoices } from './test-case-choices';
import { sourceValue } from './test-case-draft';

export type Verdict = TestResult['verdict'];

function quoted(phrases: readonly string[]): string {
  return phrases.map((phrase) => `“${phrase}”`).join(', ');
}

function sourceText(expectation: Extract<Expectation, { type: 'cites_source' }>, choices: TestCaseChoices | undefined): string {
  const chosen = choices?.sources.find((option) => option.value === sourceValue(expectation));
  if (chosen !== undefined) return chosen.group === undefined ? chosen.label : `${chosen.label} (${chosen.group})`;
  return [expectation.file_path, expectation.knowledge_base_id, expectation.document_id]
    .filter((part): part is string => part !== undefined)
    .join(' · ');
}

/** With the editor's choices, a source or rubric reads by its name rather than its id. */
export function expectationText(expectation: Expectation, choices?: TestCaseChoices): string {
  switch (expectation.type) {
    case 'contains':
      return t('assistantTests.describeContains', { phrases: quoted(expectation.phrases) });
    case 'not_contains':
      return t('assistantTests.describeNotContains', { phrases: quoted(expectation.phrases) });
    case 'cites_source':
      return t('assistantTests.describeCitesSource', { source: sourceText(expectation, choices) });
    case 'calls_tool':
      return t('assistantTests.describeCallsTool', { tool: expectation.tool });
    case 'does_not_call_tool':
      return t('assistantTests.describeDoesNotCallTool', { tool: expectation.tool });
    case 'max_tool_rounds':
      return t('assistantTests.describeMaxToolRounds', { rounds: expectation.rounds });
    case 'max_length':
      return t('assistantTests.describeMaxLength', { characters: expectation.characters });
    case 'language':
      return t('assistantTests.describeLanguage', { language: expectation.language });
    case 'judged':
      return expectation.rubric_id === undefined
        ? t('assistantTests.describeJudgedCriterion', { criterion: expectation.criterion ?? '' })
        : t('assistantTests.describeJudgedRubric', {
            rubric: choices?.rubrics.find((option) => option.value === expectation.rubric_id)?.label ?? expectation.rubric_id,
          });
  }
}

const VERDICT_KEYS = {
  pass: 'assistantTests.verdictPass',
  fail: 'assistantTests.verdictFail',
  mixed: 'assistantTests.verdictMixed',
  not_judged: 'assistantTests.verdictNotJudged',
  error: 'assistantTests.verdictError',
} as const;

export function verdictText(verdict: Verdict): string {
  return t(VERDICT_KEYS[verdict]);
}
