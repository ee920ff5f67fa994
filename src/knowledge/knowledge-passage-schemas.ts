/**
 * A knowledge-base passage in its context, as the API shows it to someone reading a cited source:
 * the passage and its neighbours in the document, in order. Declared once; the route checks and
 * serializes with it and knowledge-passage-service.ts reads its types from it.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { idSchema } from '../validation/shape-fragments.js';

/** How many passages on each side of the cited one are shown with it. */
export const PASSAGE_NEIGHBOURS = 2;

export const passageParametersSchema = {
  type: 'object',
  required: ['id', 'documentId', 'chunkIndex'],
  properties: {
    id: idSchema,
    documentId: idSchema,
    chunkIndex: { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
  },
} as const;

export const passageQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    assistant_id: {
      ...idSchema,
      description: 'The assistant whose answer cited the passage: a reader who may chat with it may read what it searched',
    },
  },
} as const;

const passageSchema = {
  type: 'object',
  required: ['chunk_index', 'text'],
  additionalProperties: false,
  properties: {
    chunk_index: { type: 'integer' },
    text: { type: 'string' },
    page: { type: 'integer' },
    section: { type: 'string', description: 'the heading of the section the passage is under' },
  },
} as const;

export const passageInContextSchema = {
  type: 'object',
  description: `The passage with up to ${PASSAGE_NEIGHBOURS} passages on each side, in document order`,
  required: ['knowledge_base_id', 'document_id', 'file_name', 'chunk_index', 'chunk_count', 'passages'],
  additionalProperties: false,
  properties: {
    knowledge_base_id: { type: 'integer' },
    document_id: { type: 'integer' },
    file_name: { type: 'string' },
    chunk_index: { type: 'integer', description: 'the cited passage' },
    chunk_count: { type: 'integer' },
    passages: { type: 'array', items: passageSchema },
  },
} as const;

export type PassageInContext = FromSchema<typeof passageInContextSchema>;
