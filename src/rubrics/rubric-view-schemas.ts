/**
 * How the rubrics API shows rubrics, as JSON Schemas: a whole rubric (LAMB's rubric JSON at the
 * top level, plus its ownership), a rubric in a list (without its criteria), and an export. The
 * routes serialize answers with them and show them in the OpenAPI document; rubric-service.ts
 * reads its summary type from them, and its whole-rubric type (whose criteria and metadata are
 * open objects here) is pinned to them by test/rubric-views-match-their-response-schemas.test.ts.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { openObjectSchema, timestampSchema } from '../validation/shape-fragments.js';
import { RUBRIC_VISIBILITIES, SCORING_TYPES } from './rubric-schema.js';

/** Who owns a rubric and who may see it, as every view of it shows. */
const ownershipProperties = {
  visibility: { type: 'string', enum: RUBRIC_VISIBILITIES },
  owner: { type: 'string', description: "the owner's email" },
  organization_id: { type: 'integer' },
  is_mine: { type: 'boolean' },
  created_at: timestampSchema,
  updated_at: timestampSchema,
} as const;
const ownershipRequired = ['visibility', 'owner', 'organization_id', 'is_mine', 'created_at', 'updated_at'] as const;

/** A rubric: LAMB's rubric JSON at the top level, plus its ownership. Criteria and metadata keep every key they hold. */
export function rubricViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      rubricId: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      metadata: openObjectSchema('subject, gradeLevel, author, version, tags, createdAt, modifiedAt and any other keys'),
      criteria: {
        type: 'array',
        items: openObjectSchema('a criterion: id, name, description, weight, order and its levels (id, score, label, description, order)'),
      },
      scoringType: { type: 'string', enum: SCORING_TYPES },
      maxScore: { type: 'number' },
      ...ownershipProperties,
    },
    required: ['rubricId', 'title', 'description', 'metadata', 'criteria', 'scoringType', 'maxScore', ...ownershipRequired],
    additionalProperties: false,
  } as const;
}

export const rubricSummaryViewSchema = {
  type: 'object',
  description: 'a rubric, without its criteria',
  properties: {
    rubricId: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    subject: { type: ['string', 'null'] },
    gradeLevel: { type: ['string', 'null'] },
    scoringType: { type: 'string', enum: SCORING_TYPES },
    maxScore: { type: 'number' },
    criteria_count: { type: 'integer' },
    ...ownershipProperties,
  },
  required: [
    'rubricId',
    'title',
    'description',
    'subject',
    'gradeLevel',
    'scoringType',
    'maxScore',
    'criteria_count',
    ...ownershipRequired,
  ],
  additionalProperties: false,
} as const;

export type RubricSummaryView = FromSchema<typeof rubricSummaryViewSchema>;

export const rubricExportResponse = {
  description: 'The rubric as an attachment: LAMB rubric JSON (format=json) or a markdown document (format=markdown)',
  content: {
    'application/json': { schema: openObjectSchema("LAMB's rubric JSON") },
    'text/markdown': { schema: { type: 'string' } },
  },
} as const;

/** The evaluation document of a rubric not saved yet (POST /api/rubrics/preview), as rubric_rag would put it in `{rubric}`. */
export const rubricPreviewViewSchema = {
  type: 'object',
  description: 'The evaluation document rubric_rag would put in {rubric} for this rubric, in the format asked for',
  properties: {
    format: { type: 'string', enum: ['markdown', 'json'] },
    document: { type: 'string' },
  },
  required: ['format', 'document'],
  additionalProperties: false,
} as const;

export type RubricPreview = FromSchema<typeof rubricPreviewViewSchema>;
