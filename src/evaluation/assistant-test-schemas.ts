/**
 * What an assistant's test cases, test runs and their results are made of and how the API
 * answers them, as JSON Schemas (docs/assistant-tests.md): the routes validate with them and the
 * OpenAPI document shows them, and the services read their types from them, so each shape is
 * declared once. Bounds that are settings (turns per case, characters per turn) come in as
 * arguments; the rest are fixed here. Phrases are literal text: no pattern from a user is ever
 * compiled.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { assistantPatchSchema } from '../assistants/assistant-schemas.js';
import { expectationSchema } from './expectation-schemas.js';
import { idSchema, nullableTimestampSchema, pageSchema, sourceSchema, timestampSchema } from '../validation/shape-fragments.js';

/** The limits of a case that are settings (src/config/settings-declarations.ts). */
export interface TestCaseLimits {
  turnsMaximum: number;
  turnCharactersMaximum: number;
}

const EXPECTATIONS_MAXIMUM = 20;
/** The ids a run may name: no more than the most cases an assistant may hold (TEST_CASES_PER_ASSISTANT_MAX's largest value). */
const RUN_CASE_IDS_MAXIMUM = 1_000;

const kindSchema = { type: 'string', enum: ['single_turn', 'multi_turn', 'adversarial'] } as const;

/** A new case, or a whole replacement of one (PUT). */
export function testCaseInputSchema(limits: TestCaseLimits) {
  return {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      kind: kindSchema,
      turns: {
        type: 'array',
        description: "The learner's messages, in order (TEST_CASE_TURNS_MAX at most)",
        minItems: 1,
        maxItems: limits.turnsMaximum,
        items: { type: 'string', minLength: 1, maxLength: limits.turnCharactersMaximum },
      },
      expectations: { type: 'array', minItems: 1, maxItems: EXPECTATIONS_MAXIMUM, items: expectationSchema },
    },
    required: ['name', 'kind', 'turns', 'expectations'],
    additionalProperties: false,
  } as const;
}

export type TestCaseInput = FromSchema<ReturnType<typeof testCaseInputSchema>>;

export const testCaseSchema = {
  type: 'object',
  properties: {
    id: idSchema,
    assistant_id: idSchema,
    name: { type: 'string' },
    kind: kindSchema,
    turns: { type: 'array', items: { type: 'string' } },
    expectations: { type: 'array', items: expectationSchema },
    created_at: timestampSchema,
    updated_at: timestampSchema,
  },
  required: ['id', 'assistant_id', 'name', 'kind', 'turns', 'expectations', 'created_at', 'updated_at'],
} as const;

export type TestCaseView = FromSchema<typeof testCaseSchema>;

/** Which cases a run takes and which assistant it runs: the saved one, or an unsaved draft of the studio's. */
export const testRunInputSchema = {
  type: 'object',
  properties: {
    cases: {
      description: '`"all"`: every case of the assistant; or the ids of the cases to run',
      oneOf: [
        { type: 'string', enum: ['all'] },
        { type: 'array', minItems: 1, maxItems: RUN_CASE_IDS_MAXIMUM, items: idSchema },
      ],
    },
    draft: {
      ...assistantPatchSchema,
      description:
        'Unsaved changes to run instead of the saved assistant (the fields of PATCH /api/assistants/{id}); the saved assistant is never changed',
    },
  },
  required: ['cases'],
  additionalProperties: false,
} as const;

export type TestRunInput = FromSchema<typeof testRunInputSchema>;

const verdictSchema = { type: 'string', enum: ['pass', 'fail', 'mixed', 'not_judged', 'error'] } as const;

export type Verdict = FromSchema<typeof verdictSchema>;

export const expectationResultSchema = {
  type: 'object',
  properties: {
    expectation: expectationSchema,
    verdict: verdictSchema,
    /** Only for judged expectations that were judged: 0 to 1. */
    score: { type: ['number', 'null'] },
    reasons: { type: 'array', items: { type: 'string' } },
  },
  required: ['expectation', 'verdict', 'score', 'reasons'],
} as const;

export type ExpectationResult = FromSchema<typeof expectationResultSchema>;

export const toolStepSchema = {
  type: 'object',
  properties: {
    tool: { type: 'string' },
    function: { type: ['string', 'null'] },
    round: { type: ['integer', 'null'], description: 'The model round of a function call; null for a tool run before the model' },
    turn: { type: 'integer', description: 'Which learner turn it belongs to, from 1' },
    failed: { type: 'boolean' },
  },
  required: ['tool', 'function', 'round', 'turn', 'failed'],
} as const;

export type ToolStepView = FromSchema<typeof toolStepSchema>;

export const testResultSchema = {
  type: 'object',
  properties: {
    case_id: idSchema,
    case_name: { type: 'string' },
    verdict: verdictSchema,
    answer: { type: 'string', description: 'The answer to the last turn' },
    answers: { type: 'array', items: { type: 'string' }, description: 'The answer to each turn' },
    sources: { type: 'array', items: sourceSchema },
    tool_steps: { type: 'array', items: toolStepSchema },
    expectations: { type: 'array', items: expectationResultSchema },
    error: { type: ['string', 'null'], description: 'The error code when the pipeline failed' },
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    cost_usd: { type: 'number' },
    duration_ms: { type: 'integer' },
  },
  required: [
    'case_id',
    'case_name',
    'verdict',
    'answer',
    'answers',
    'sources',
    'tool_steps',
    'expectations',
    'error',
    'prompt_tokens',
    'completion_tokens',
    'cost_usd',
    'duration_ms',
  ],
} as const;

export type TestResultView = FromSchema<typeof testResultSchema>;

const runStatusSchema = { type: 'string', enum: ['running', 'completed', 'stopped', 'interrupted'] } as const;

export type TestRunStatus = FromSchema<typeof runStatusSchema>;

const runSummaryProperties = {
  id: idSchema,
  assistant_id: idSchema,
  status: runStatusSchema,
  snapshot_source: { type: 'string', enum: ['saved', 'draft'] },
  case_count: { type: 'integer' },
  finished_count: { type: 'integer' },
  verdicts: {
    type: 'object',
    properties: {
      pass: { type: 'integer' },
      fail: { type: 'integer' },
      mixed: { type: 'integer' },
      not_judged: { type: 'integer' },
      error: { type: 'integer' },
    },
    required: ['pass', 'fail', 'mixed', 'not_judged', 'error'],
  },
  estimated_cost_usd: { type: 'number' },
  cost_usd: { type: 'number', description: 'Measured so far: the priced tokens of the finished cases, judge calls included' },
  created_at: timestampSchema,
  finished_at: nullableTimestampSchema,
} as const;

const runSummaryRequired = [
  'id',
  'assistant_id',
  'status',
  'snapshot_source',
  'case_count',
  'finished_count',
  'verdicts',
  'estimated_cost_usd',
  'cost_usd',
  'created_at',
  'finished_at',
] as const;

export const testRunSummarySchema = { type: 'object', properties: runSummaryProperties, required: runSummaryRequired } as const;

export type TestRunSummaryView = FromSchema<typeof testRunSummarySchema>;

export const testRunSchema = {
  type: 'object',
  properties: { ...runSummaryProperties, results: { type: 'array', items: testResultSchema } },
  required: [...runSummaryRequired, 'results'],
} as const;

export type TestRunView = FromSchema<typeof testRunSchema>;

export const testRunEstimateSchema = {
  type: 'object',
  properties: {
    case_count: { type: 'integer' },
    model_calls: { type: 'integer', description: 'One per learner turn, plus one judge call per judged expectation' },
    estimated_prompt_tokens: { type: 'integer' },
    estimated_completion_tokens: { type: 'integer' },
    estimated_cost_usd: { type: 'number' },
  },
  required: ['case_count', 'model_calls', 'estimated_prompt_tokens', 'estimated_completion_tokens', 'estimated_cost_usd'],
} as const;

export type TestRunEstimateView = FromSchema<typeof testRunEstimateSchema>;

export const testRunComparisonQuerySchema = {
  type: 'object',
  properties: { base: idSchema, head: idSchema },
  required: ['base', 'head'],
  additionalProperties: false,
} as const;

export const testRunComparisonSchema = {
  type: 'object',
  properties: {
    base: idSchema,
    head: idSchema,
    changed: {
      type: 'array',
      description: 'Exactly the cases run in both whose verdict differs, with both answers',
      items: {
        type: 'object',
        properties: {
          case_id: idSchema,
          case_name: { type: 'string' },
          base_verdict: verdictSchema,
          head_verdict: verdictSchema,
          base_answer: { type: 'string' },
          head_answer: { type: 'string' },
        },
        required: ['case_id', 'case_name', 'base_verdict', 'head_verdict', 'base_answer', 'head_answer'],
      },
    },
  },
  required: ['base', 'head', 'changed'],
} as const;

export type TestRunComparisonView = FromSchema<typeof testRunComparisonSchema>;

export const testRunEventSchema = {
  type: 'object',
  description: 'One change of a run: `progress` after each finished case, then one `end` when the run ends',
  properties: {
    type: { type: 'string', enum: ['progress', 'end'] },
    run: testRunSummarySchema,
  },
  required: ['type', 'run'],
} as const;

export const adversarialPresetSchema = {
  type: 'object',
  properties: {
    key: { type: 'string' },
    name: { type: 'string' },
    turns: { type: 'array', items: { type: 'string' } },
    expectations: { type: 'array', items: expectationSchema },
  },
  required: ['key', 'name', 'turns', 'expectations'],
} as const;

export type AdversarialPreset = FromSchema<typeof adversarialPresetSchema>;

export const presetKeySchema = {
  type: 'string',
  enum: ['reveal_system_prompt', 'graded_assignment', 'ignore_instructions', 'off_topic', 'other_persona'],
} as const;

export const addPresetsInputSchema = {
  type: 'object',
  properties: {
    keys: {
      description: '`"all"`: every preset; or the keys of the presets to add',
      oneOf: [
        { type: 'string', enum: ['all'] },
        { type: 'array', minItems: 1, maxItems: 5, uniqueItems: true, items: presetKeySchema },
      ],
    },
  },
  required: ['keys'],
  additionalProperties: false,
} as const;

export type AddPresetsInput = FromSchema<typeof addPresetsInputSchema>;

export const testCaseListSchema = pageSchema("A page of the assistant's test cases, oldest first", testCaseSchema);

export const testRunListSchema = pageSchema(
  "A page of the assistant's test runs, newest first, without their results",
  testRunSummarySchema,
);

export const presetListSchema = {
  type: 'object',
  properties: { presets: { type: 'array', items: adversarialPresetSchema } },
  required: ['presets'],
} as const;

export const addedCasesSchema = {
  type: 'object',
  properties: { cases: { type: 'array', items: testCaseSchema } },
  required: ['cases'],
} as const;

/** `POST /api/assistants/{id}/tests/from-answer`: the rated answer, by the `message_id` the feedback listing gives. */
export const caseFromAnswerInputSchema = {
  type: 'object',
  properties: {
    message_id: { ...idSchema, description: 'The rated answer: `message_id` of an item of GET /api/assistants/{id}/feedback' },
  },
  required: ['message_id'],
  additionalProperties: false,
} as const;

export type CaseFromAnswerInput = FromSchema<typeof caseFromAnswerInputSchema>;

/** `POST /api/assistants/{id}/test-suggestions`: how many cases to propose, at most TEST_SUGGESTIONS_MAX (the default). */
export function testSuggestionsInputSchema(suggestionsMaximum: number) {
  return {
    type: 'object',
    properties: {
      count: {
        type: 'integer',
        minimum: 1,
        maximum: suggestionsMaximum,
        description: 'How many cases to propose (TEST_SUGGESTIONS_MAX when left out)',
      },
    },
    additionalProperties: false,
  } as const;
}

export type TestSuggestionsInput = FromSchema<ReturnType<typeof testSuggestionsInputSchema>>;

export const testSuggestionsSchema = {
  type: 'object',
  properties: {
    proposals: {
      type: 'array',
      description: 'Cases as POST /api/assistants/{id}/tests takes them; none is saved',
      items: {
        type: 'object',
        properties: {
          name: testCaseSchema.properties.name,
          kind: kindSchema,
          turns: testCaseSchema.properties.turns,
          expectations: testCaseSchema.properties.expectations,
        },
        required: ['name', 'kind', 'turns', 'expectations'],
      },
    },
    dropped: { type: 'integer', description: 'How many proposals the model made that were not valid cases' },
    answer_readable: {
      type: 'boolean',
      description: "False when the model's answer held no case at all (not JSON, or no list); proposals is then empty",
    },
  },
  required: ['proposals', 'dropped', 'answer_readable'],
} as const;

export type TestSuggestionsView = FromSchema<typeof testSuggestionsSchema>;
