/**
 * LAMB's rubric JSON ("evaluaitor" format) as one JSON Schema, from which come the validator
 * (rubric-problems.ts), the TypeScript types of a rubric, and the order problems are listed in
 * (the order of `properties`). Each rule carries, in `problems`, the wording a client reads when
 * it is broken, keyword by keyword (`{type}` names the value's type, `{limit}` the rule's number,
 * `{count}` an array's length); rules without one get the common wording of rubric-problems.ts.
 *
 * LAMB's rules, kept: title, criteria, scoringType and maxScore are required; at least one
 * criterion; each criterion has a non-empty name and description, a weight of 0 or more and at
 * least two levels; each level has a numeric score and a non-empty label and description; `order`
 * is a whole number of 0 or more; maxScore is positive; metadata's subject and gradeLevel are
 * strings (or null), author and version strings, tags an array of strings; a rubricId has at
 * least 10 characters. Added here: lengths and counts are bounded. Id uniqueness (level ids
 * within their criterion, criterion ids within the rubric) is a rule between fields, checked in
 * rubric-document.ts.
 */
import type { FromSchema } from 'json-schema-to-ts';

export const SCORING_TYPES = ['points', 'percentage', 'holistic', 'single-point', 'checklist'] as const;
export type ScoringType = (typeof SCORING_TYPES)[number];

export const RUBRIC_VISIBILITIES = ['private', 'organization'] as const;
export type RubricVisibility = (typeof RUBRIC_VISIBILITIES)[number];

/** The same alphabet without the length rule: what a tool config or a lookup may name (LAMB's old integer ids become short strings). */
export const RUBRIC_REFERENCE_PATTERN = /^[\p{L}\p{N}._:~-]{1,200}$/u;

export const RUBRIC_LIMITS = {
  titleLength: 200,
  /** LAMB's create request caps the description at 2,000 characters. */
  descriptionLength: 2_000,
  criteria: 50,
  levelsPerCriterion: 20,
  nameLength: 200,
  textLength: 5_000,
  idLength: 100,
} as const;

// Schema patterns are written out as literals so the ReDoS check (test/no-regex-backtracks-super-linearly.test.ts)
// reads each one; `\\S` (a character other than white space) is what "not empty" means for a name or a description.

/** An id the client chose; null, missing or "" mean "generate one" (as LAMB treats a falsy id). */
const idSchema = {
  type: ['string', 'null'],
  pattern: '^$|\\S',
  maxLength: RUBRIC_LIMITS.idLength,
  problems: { type: 'must be a non-empty string, not {type}.', pattern: 'must be a non-empty string, not {type}.' },
} as const;

/** Null or missing mean "no order". */
const orderSchema = {
  type: ['integer', 'null'],
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  problems: { any: 'must be a whole number of 0 or more.' },
} as const;

const levelSchema = {
  type: 'object',
  properties: {
    id: idSchema,
    score: { type: 'number' },
    label: { type: 'string', pattern: '\\S', maxLength: RUBRIC_LIMITS.nameLength },
    description: { type: 'string', pattern: '\\S', maxLength: RUBRIC_LIMITS.textLength },
    order: orderSchema,
  },
  required: ['score', 'label', 'description'],
  additionalProperties: false,
  problems: { type: 'must be an object (a performance level), not {type}.' },
} as const;

const criterionSchema = {
  type: 'object',
  properties: {
    id: idSchema,
    name: { type: 'string', pattern: '\\S', maxLength: RUBRIC_LIMITS.nameLength },
    description: { type: 'string', pattern: '\\S', maxLength: RUBRIC_LIMITS.textLength },
    weight: { type: 'number', minimum: 0 },
    order: orderSchema,
    levels: {
      type: 'array',
      minItems: 2,
      maxItems: RUBRIC_LIMITS.levelsPerCriterion,
      items: levelSchema,
      problems: {
        type: 'must be an array of performance levels, not {type}.',
        minItems: 'must hold at least {limit} performance levels (it holds {count}).',
        maxItems: 'must hold at most {limit} performance levels.',
      },
    },
  },
  required: ['name', 'description', 'weight', 'levels'],
  additionalProperties: false,
  problems: { type: 'must be an object (a criterion), not {type}.' },
} as const;

const SCORING_TYPE_LIST = SCORING_TYPES.join(', ');

/**
 * A rubric as a client sends it (create, update, import). `properties` are in document order,
 * which is the order problems are listed in. The server keeps the timestamps in metadata: what a
 * client sends for them is accepted and replaced.
 */
export const rubricSchema = {
  type: 'object',
  properties: {
    rubricId: {
      type: ['string', 'null'],
      // LAMB requires at least 10 characters; letters, digits and `. _ : ~ -` keep an id safe in a URL path and a status line.
      pattern: '^$|^[\\p{L}\\p{N}._:~-]{10,200}$',
      problems: {
        type: 'must be a string, not {type}.',
        pattern: 'must be 10 to 200 letters, digits or the characters . _ : ~ - (leave it out and the server generates one).',
      },
    },
    title: { type: 'string', pattern: '\\S', maxLength: RUBRIC_LIMITS.titleLength },
    description: { type: 'string', maxLength: RUBRIC_LIMITS.descriptionLength },
    metadata: {
      type: ['object', 'null'],
      // LAMB's metadata is an open object; other keys are kept as sent.
      properties: {
        subject: { type: ['string', 'null'], problems: { type: 'must be a string or null, not {type}.' } },
        gradeLevel: { type: ['string', 'null'], problems: { type: 'must be a string or null, not {type}.' } },
        author: { type: 'string' },
        version: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, problems: { type: 'must be an array of strings, not {type}.' } },
      },
      problems: { type: 'must be an object, not {type}.' },
    },
    criteria: {
      type: 'array',
      minItems: 1,
      maxItems: RUBRIC_LIMITS.criteria,
      items: criterionSchema,
      problems: {
        type: 'must be an array of criteria, not {type}.',
        minItems: 'must hold at least one criterion.',
        maxItems: 'must hold at most {limit} criteria.',
      },
    },
    scoringType: {
      enum: SCORING_TYPES,
      problems: { required: `is required: one of ${SCORING_TYPE_LIST}.`, enum: `must be one of ${SCORING_TYPE_LIST}.` },
    },
    maxScore: { type: 'number', exclusiveMinimum: 0, problems: { exclusiveMinimum: 'must be a positive number.' } },
  },
  required: ['title', 'criteria', 'scoringType', 'maxScore'],
  additionalProperties: false,
  problems: { type: 'must be a rubric object, not {type}.' },
} as const;

/** A rubric as a client sent it, once it obeys rubricSchema. */
export type RubricInput = FromSchema<typeof rubricSchema>;
type CriterionInput = RubricInput['criteria'][number];
type LevelInput = CriterionInput['levels'][number];
type MetadataInput = NonNullable<RubricInput['metadata']>;

/** What reading drops or settles: null and "" ids are missing, a null order is no order. */
type Settled<Input extends { id?: string | null; order?: number | null }> = Omit<Input, 'id' | 'order'> & { order?: number };

export type RubricLevel = Settled<LevelInput> & { id: string };

export type RubricCriterion = Omit<Settled<CriterionInput>, 'levels'> & { id: string; levels: RubricLevel[] };

export type RubricMetadata = MetadataInput & { createdAt: string; modifiedAt: string };

/** A complete rubric, as stored and exported: LAMB's rubric JSON. */
export interface RubricDocument extends Omit<RubricInput, 'rubricId' | 'description' | 'metadata' | 'criteria'> {
  rubricId: string;
  description: string;
  metadata: RubricMetadata;
  criteria: RubricCriterion[];
}

/** A validated rubric that may still lack its ids and timestamps. */
export interface RubricDraft extends Omit<RubricDocument, 'rubricId' | 'metadata' | 'criteria'> {
  rubricId?: string;
  metadata: MetadataInput;
  criteria: Array<Omit<RubricCriterion, 'id' | 'levels'> & { id?: string; levels: Array<Omit<RubricLevel, 'id'> & { id?: string }> }>;
}
