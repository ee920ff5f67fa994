/**
 * The expectations a test case may hold (docs/assistant-tests.md), as one JSON Schema told apart
 * by `type`: the routes validate cases with it, and grading reads its type from it. Phrases are
 * literal text: no pattern from a user is ever compiled.
 */
import type { FromSchema } from 'json-schema-to-ts';

const PHRASES_MAXIMUM = 20;
const PHRASE_LENGTH_MAXIMUM = 500;
const CRITERION_LENGTH_MAXIMUM = 2_000;

const phrasesSchema = {
  type: 'array',
  minItems: 1,
  maxItems: PHRASES_MAXIMUM,
  items: { type: 'string', minLength: 1, maxLength: PHRASE_LENGTH_MAXIMUM },
} as const;

const toolNameSchema = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' } as const;

/**
 * The expectations a case may hold, told apart by `type`. The discriminator makes the validator
 * check only the branch the type names, so a refused expectation is told what is wrong with its own
 * fields (`expectations[0].phrases`) rather than that it matches none of the nine shapes.
 */
export const expectationSchema = {
  type: 'object',
  discriminator: { propertyName: 'type' },
  required: ['type'],
  oneOf: [
    {
      type: 'object',
      description: 'The answer contains every phrase (literal text, case-insensitive)',
      properties: { type: { const: 'contains' }, phrases: phrasesSchema },
      required: ['type', 'phrases'],
      additionalProperties: false,
    },
    {
      type: 'object',
      description: 'The answer contains none of the phrases (literal text, case-insensitive)',
      properties: { type: { const: 'not_contains' }, phrases: phrasesSchema },
      required: ['type', 'phrases'],
      additionalProperties: false,
    },
    {
      type: 'object',
      description:
        'A source of the answer comes from this knowledge-base document (knowledge_base_id, and document_id when given) or this file (file_path)',
      properties: {
        type: { const: 'cites_source' },
        knowledge_base_id: { type: 'string', minLength: 1, maxLength: 200 },
        document_id: { type: 'string', minLength: 1, maxLength: 200 },
        file_path: { type: 'string', minLength: 1, maxLength: 1_000 },
      },
      required: ['type'],
      minProperties: 2,
      additionalProperties: false,
    },
    {
      type: 'object',
      description: 'The run calls this tool (its name, or the function name the model saw)',
      properties: { type: { const: 'calls_tool' }, tool: toolNameSchema },
      required: ['type', 'tool'],
      additionalProperties: false,
    },
    {
      type: 'object',
      description: 'The run never calls this tool',
      properties: { type: { const: 'does_not_call_tool' }, tool: toolNameSchema },
      required: ['type', 'tool'],
      additionalProperties: false,
    },
    {
      type: 'object',
      description: 'The model calls functions in at most this many rounds (over all turns)',
      properties: { type: { const: 'max_tool_rounds' }, rounds: { type: 'integer', minimum: 0, maximum: 50 } },
      required: ['type', 'rounds'],
      additionalProperties: false,
    },
    {
      type: 'object',
      description: 'The answer is at most this many characters long',
      properties: { type: { const: 'max_length' }, characters: { type: 'integer', minimum: 1, maximum: 1_000_000 } },
      required: ['type', 'characters'],
      additionalProperties: false,
    },
    {
      type: 'object',
      description: 'The answer is in this language (en, es, ca, eu, fr, de, it, pt), as a stop-word heuristic guesses it',
      properties: { type: { const: 'language' }, language: { type: 'string', enum: ['en', 'es', 'ca', 'eu', 'fr', 'de', 'it', 'pt'] } },
      required: ['type', 'language'],
      additionalProperties: false,
    },
    {
      type: 'object',
      description:
        "Graded by the organization's small fast model against a sentence in the teacher's words (criterion) or a rubric (rubric_id)",
      properties: {
        type: { const: 'judged' },
        criterion: { type: 'string', minLength: 1, maxLength: CRITERION_LENGTH_MAXIMUM },
        rubric_id: { type: 'string', minLength: 1, maxLength: 200 },
      },
      required: ['type'],
      minProperties: 2,
      maxProperties: 2,
      additionalProperties: false,
    },
  ],
} as const;

export type Expectation = FromSchema<typeof expectationSchema>;
