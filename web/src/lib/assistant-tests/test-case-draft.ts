/**
 * What the test case editor holds while a teacher writes a case, and the request body it becomes.
 * Every field is kept as the text the teacher typed (phrases one per line, numbers as typed), so a
 * half-written case survives switching an expectation's type; the server checks the body and names
 * the field of any problem, which the editor shows there.
 */
import type { Expectation, NewTestCase, TestCase } from '$lib/api/assistant-tests';

export type ExpectationType = Expectation['type'];
export type CaseKind = NewTestCase['kind'];
export type AnswerLanguage = Extract<Expectation, { type: 'language' }>['language'];

export const EXPECTATION_TYPES: readonly ExpectationType[] = [
  'contains',
  'not_contains',
  'cites_source',
  'calls_tool',
  'does_not_call_tool',
  'max_tool_rounds',
  'max_length',
  'language',
  'judged',
];

export const CASE_KINDS: readonly CaseKind[] = ['single_turn', 'multi_turn', 'adversarial'];

export const ANSWER_LANGUAGES: readonly AnswerLanguage[] = ['en', 'es', 'ca', 'eu', 'fr', 'de', 'it', 'pt'];

/** The parts of a cited source; a choice of the editor's source list is these, as JSON. */
export interface SourceFields {
  knowledge_base_id?: string;
  document_id?: string;
  file_path?: string;
}

export interface ExpectationDraft {
  /** Keeps each row's fields with it when another row is removed. */
  key: number;
  type: ExpectationType;
  phrases: string;
  /** A source choice (sourceValue), or '' while none is chosen. */
  source: string;
  tool: string;
  /** Rounds or characters, as typed (a number field gives a number, or null when emptied). */
  limit: string | number;
  language: AnswerLanguage;
  judgedBy: 'criterion' | 'rubric';
  criterion: string;
  rubricId: string;
}

export interface TurnDraft {
  key: number;
  text: string;
}

export interface CaseDraft {
  name: string;
  kind: CaseKind;
  turns: TurnDraft[];
  expectations: ExpectationDraft[];
}

let nextKey = 0;

/** A key no row of this page holds yet. */
export function newKey(): number {
  nextKey += 1;
  return nextKey;
}

/** The one spelling of a source choice, whatever order its fields came in. */
export function sourceValue(fields: SourceFields): string {
  const ordered: SourceFields = {};
  if (fields.knowledge_base_id !== undefined) ordered.knowledge_base_id = fields.knowledge_base_id;
  if (fields.document_id !== undefined) ordered.document_id = fields.document_id;
  if (fields.file_path !== undefined) ordered.file_path = fields.file_path;
  return JSON.stringify(ordered);
}

function sourceFieldsOf(value: string): SourceFields {
  if (value === '') return {};
  const parsed = JSON.parse(value) as SourceFields;
  return parsed;
}

export function newExpectationDraft(type: ExpectationType = 'contains'): ExpectationDraft {
  return {
    key: newKey(),
    type,
    phrases: '',
    source: '',
    tool: '',
    limit: '',
    language: 'en',
    judgedBy: 'criterion',
    criterion: '',
    rubricId: '',
  };
}

export function expectationDraftOf(expectation: Expectation): ExpectationDraft {
  const draft = newExpectationDraft(expectation.type);
  switch (expectation.type) {
    case 'contains':
    case 'not_contains':
      return { ...draft, phrases: expectation.phrases.join('\n') };
    case 'cites_source':
      return { ...draft, source: sourceValue(expectation) };
    case 'calls_tool':
    case 'does_not_call_tool':
      return { ...draft, tool: expectation.tool };
    case 'max_tool_rounds':
      return { ...draft, limit: String(expectation.rounds) };
    case 'max_length':
      return { ...draft, limit: String(expectation.characters) };
    case 'language':
      return { ...draft, language: expectation.language };
    case 'judged':
      return expectation.rubric_id === undefined
        ? { ...draft, criterion: expectation.criterion ?? '' }
        : { ...draft, judgedBy: 'rubric', rubricId: expectation.rubric_id };
  }
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** A whole number as typed; anything else is sent as null, so the server names the field. */
function whole(typed: string | number | null): number {
  const text = String(typed ?? '').trim();
  return /^\d{1,7}$/.test(text) ? Number(text) : (null as unknown as number);
}

export function expectationOf(draft: ExpectationDraft): Expectation {
  switch (draft.type) {
    case 'contains':
    case 'not_contains':
      return { type: draft.type, phrases: lines(draft.phrases) };
    case 'cites_source':
      return { type: 'cites_source', ...sourceFieldsOf(draft.source) };
    case 'calls_tool':
    case 'does_not_call_tool':
      return { type: draft.type, tool: draft.tool.trim() };
    case 'max_tool_rounds':
      return { type: 'max_tool_rounds', rounds: whole(draft.limit) };
    case 'max_length':
      return { type: 'max_length', characters: whole(draft.limit) };
    case 'language':
      return { type: 'language', language: draft.language };
    case 'judged':
      return draft.judgedBy === 'rubric'
        ? { type: 'judged', rubric_id: draft.rubricId }
        : { type: 'judged', criterion: draft.criterion.trim() };
  }
}

/** What an expectation still needs chosen from a list before it can be sent (the server would only say it has too few fields). */
export function missingChoiceOf(draft: ExpectationDraft): 'source' | 'rubric' | undefined {
  if (draft.type === 'cites_source' && draft.source === '') return 'source';
  if (draft.type === 'judged' && draft.judgedBy === 'rubric' && draft.rubricId === '') return 'rubric';
  return undefined;
}

export function caseDraftOf(testCase: TestCase | undefined): CaseDraft {
  if (testCase === undefined)
    return { name: '', kind: 'single_turn', turns: [{ key: newKey(), text: '' }], expectations: [newExpectationDraft()] };
  return {
    name: testCase.name,
    kind: testCase.kind,
    turns: testCase.turns.map((text) => ({ key: newKey(), text })),
    expectations: testCase.expectations.map(expectationDraftOf),
  };
}

export function caseBodyOf(draft: CaseDraft): NewTestCase {
  return {
    name: draft.name.trim(),
    kind: draft.kind,
    turns: draft.turns.map((turn) => turn.text),
    expectations: draft.expectations.map(expectationOf),
  };
}
