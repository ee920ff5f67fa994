/**
 * The expectations of a test case that need no model (docs/assistant-tests.md): phrases the
 * answer contains or avoids (literal, case-insensitive: a phrase is never compiled into a pattern),
 * the sources it cites, the tools it calls and in how many rounds, its length and its language.
 * The judged expectation is graded by answer-judge.ts; the case's verdict comes from all of them.
 */
import type { Source } from '../pipeline/conversation/events.js';
import type { ExpectationResult, ToolStepView, Verdict } from './assistant-test-schemas.js';
import type { Expectation } from './expectation-schemas.js';
import { guessLanguage } from './language-guess.js';

/** What a case's run produced, as grading reads it. */
export interface CaseOutcome {
  /** The answer to the last turn: what phrases, length and language are checked on. */
  answer: string;
  sources: Source[];
  toolSteps: ToolStepView[];
  /** Distinct model rounds, over all turns, in which the model called functions. */
  toolRounds: number;
}

type MechanicalExpectation = Exclude<Expectation, { type: 'judged' }>;

function result(expectation: Expectation, passed: boolean, reasons: string[]): ExpectationResult {
  return { expectation, verdict: passed ? 'pass' : 'fail', score: null, reasons };
}

function phrasesFound(answer: string, phrases: readonly string[]): string[] {
  const folded = answer.toLocaleLowerCase();
  return phrases.filter((phrase) => folded.includes(phrase.toLocaleLowerCase()));
}

function citesSource(sources: readonly Source[], expectation: Extract<Expectation, { type: 'cites_source' }>): boolean {
  return sources.some(
    (source) =>
      (expectation.knowledge_base_id === undefined || source.knowledge_base_id === expectation.knowledge_base_id) &&
      (expectation.document_id === undefined || source.document_id === expectation.document_id) &&
      (expectation.file_path === undefined || source.url === expectation.file_path),
  );
}

function calledTool(steps: readonly ToolStepView[], tool: string): boolean {
  return steps.some((step) => step.tool === tool || step.function === tool);
}

export function gradeMechanically(expectation: MechanicalExpectation, outcome: CaseOutcome): ExpectationResult {
  switch (expectation.type) {
    case 'contains': {
      const found = phrasesFound(outcome.answer, expectation.phrases);
      const missing = expectation.phrases.filter((phrase) => !found.includes(phrase));
      return result(
        expectation,
        missing.length === 0,
        missing.map((phrase) => `missing: ${phrase}`),
      );
    }
    case 'not_contains': {
      const found = phrasesFound(outcome.answer, expectation.phrases);
      return result(
        expectation,
        found.length === 0,
        found.map((phrase) => `found: ${phrase}`),
      );
    }
    case 'cites_source': {
      const cited = citesSource(outcome.sources, expectation);
      return result(expectation, cited, cited ? [] : [`no source of ${outcome.sources.length} matches`]);
    }
    case 'calls_tool': {
      const called = calledTool(outcome.toolSteps, expectation.tool);
      return result(expectation, called, called ? [] : [`${expectation.tool} was not called`]);
    }
    case 'does_not_call_tool': {
      const called = calledTool(outcome.toolSteps, expectation.tool);
      return result(expectation, !called, called ? [`${expectation.tool} was called`] : []);
    }
    case 'max_tool_rounds':
      return result(expectation, outcome.toolRounds <= expectation.rounds, [`${outcome.toolRounds} tool rounds`]);
    case 'max_length':
      return result(expectation, outcome.answer.length <= expectation.characters, [`${outcome.answer.length} characters`]);
    case 'language': {
      const guessed = guessLanguage(outcome.answer);
      return result(expectation, guessed === expectation.language, [`looks like ${guessed ?? 'no known language'}`]);
    }
  }
}

const VERDICT_ORDER: readonly Verdict[] = ['error', 'fail', 'mixed', 'not_judged', 'pass'];

/** A case passes only when every expectation passes; otherwise its worst verdict (a judge that did not answer is never a pass). */
export function overallVerdict(results: readonly ExpectationResult[]): Verdict {
  for (const verdict of VERDICT_ORDER) if (results.some((entry) => entry.verdict === verdict)) return verdict;
  return 'pass';
}
