/**
 * What the rubrics API takes, as JSON Schemas: the rubricId in a path, the organization a system
 * admin names, the export format, and LAMB's rubric format as the OpenAPI document shows it. The
 * bodies themselves are checked by rubric-document.ts, which applies LAMB's rules and names every
 * problem by its path; these schemas document that format.
 */
import { RUBRIC_LIMITS, RUBRIC_VISIBILITIES, SCORING_TYPES } from './rubric-document.js';
import { idSchema } from '../validation/shape-fragments.js';

export const rubricIdParametersSchema = {
  type: 'object',
  properties: {
    rubricId: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      pattern: '^[\\p{L}\\p{N}._:~-]+$',
      description: 'The rubricId the API answered with',
    },
  },
  required: ['rubricId'],
} as const;

/** Rubric ids are unique per organization: the caller's own by default, another one only for system admins. */
export const organizationQueryProperty = {
  organization_id: {
    ...idSchema,
    description: "The organization whose rubricId this is; yours by default. Only system admins reach other organizations' rubrics.",
  },
} as const;

export const itemQuerySchema = { type: 'object', properties: organizationQueryProperty } as const;

const levelSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'unique within its criterion; generated when missing' },
    score: { type: 'number' },
    label: { type: 'string', minLength: 1, maxLength: RUBRIC_LIMITS.nameLength },
    description: { type: 'string', minLength: 1, maxLength: RUBRIC_LIMITS.textLength },
    order: { type: 'integer', minimum: 0 },
  },
  required: ['score', 'label', 'description'],
} as const;

const criterionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'unique within the rubric; generated when missing' },
    name: { type: 'string', minLength: 1, maxLength: RUBRIC_LIMITS.nameLength },
    description: { type: 'string', minLength: 1, maxLength: RUBRIC_LIMITS.textLength },
    weight: { type: 'number', minimum: 0, description: "the criterion's share of the final score is its weight over the sum of weights" },
    order: { type: 'integer', minimum: 0 },
    levels: { type: 'array', minItems: 2, maxItems: RUBRIC_LIMITS.levelsPerCriterion, items: levelSchema },
  },
  required: ['name', 'description', 'weight', 'levels'],
} as const;

export const rubricFields = {
  rubricId: { type: 'string', minLength: 10, maxLength: 200, description: 'LAMB rubricId; generated (a UUID) when missing' },
  title: { type: 'string', minLength: 1, maxLength: RUBRIC_LIMITS.titleLength },
  description: { type: 'string', maxLength: RUBRIC_LIMITS.descriptionLength },
  metadata: {
    type: 'object',
    description: 'subject, gradeLevel, author, version, tags and any other keys; createdAt and modifiedAt are set by the server',
    properties: {
      subject: { type: ['string', 'null'] },
      gradeLevel: { type: ['string', 'null'] },
      author: { type: 'string' },
      version: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
    },
  },
  criteria: { type: 'array', minItems: 1, maxItems: RUBRIC_LIMITS.criteria, items: criterionSchema },
  scoringType: { type: 'string', enum: [...SCORING_TYPES] },
  maxScore: { type: 'number', exclusiveMinimum: 0 },
} as const;

export const visibilityField = {
  visibility: {
    type: 'string',
    enum: [...RUBRIC_VISIBILITIES],
    description: 'private (default): you and your admins; organization: every member may read it and use it in assistants',
  },
} as const;

export const exportQuerySchema = {
  type: 'object',
  properties: { format: { type: 'string', enum: ['json', 'markdown'], default: 'json' }, ...organizationQueryProperty },
  additionalProperties: false,
} as const;

/** The format of a preview: the two rubric_rag can put in `{rubric}`. */
export const previewQuerySchema = {
  type: 'object',
  properties: { format: { type: 'string', enum: ['markdown', 'json'], default: 'markdown' } },
  additionalProperties: false,
} as const;
