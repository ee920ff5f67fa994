/**
 * A knowledge-base passage in its context, as the API shows it to someone reading a cited source:
 * the passage and its neighbours in the document, in order; and a document's whole extracted text
 * as pages of its passages. Declared once; the routes check and serialize with them and
 * knowledge-passage-service.ts reads its types from them.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { pageBoundsQuerySchema } from '../validation/page-query-schema.js';
import { idSchema } from '../validation/shape-fragments.js';
import { documentStatusSchema } from './knowledge-document-schemas.js';

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

const assistantIdQuerySchema = {
  ...idSchema,
  description: 'The assistant whose answer cited the passage: a reader who may chat with it may read what it searched',
} as const;

export const passageQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { assistant_id: assistantIdQuerySchema },
} as const;

export const documentParametersSchema = {
  type: 'object',
  required: ['id', 'documentId'],
  properties: { id: idSchema, documentId: idSchema },
} as const;

/** A page of a document's passages: limit and offset count passages; `assistant_id` as for one passage. */
export function documentPassagesQuerySchema(pageSizeMaximum: number) {
  return pageBoundsQuerySchema(pageSizeMaximum, { assistant_id: assistantIdQuerySchema });
}

export type DocumentPassagesQuery = FromSchema<ReturnType<typeof documentPassagesQuerySchema>>;

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
  required: ['knowledge_base_id', 'knowledge_base_name', 'document_id', 'file_name', 'chunk_index', 'chunk_count', 'passages'],
  additionalProperties: false,
  properties: {
    knowledge_base_id: { type: 'integer' },
    knowledge_base_name: { type: 'string', description: 'the name of the knowledge base the document is in' },
    document_id: { type: 'integer' },
    file_name: { type: 'string' },
    chunk_index: { type: 'integer', description: 'the cited passage' },
    chunk_count: { type: 'integer' },
    passages: { type: 'array', items: passageSchema },
  },
} as const;

export type PassageInContext = FromSchema<typeof passageInContextSchema>;

/** A page of a document's extracted text: its passages in reading order, with the document they are from. */
export const documentPassagePageSchema = {
  type: 'object',
  description: "A page of the document's passages in reading order (by chunk index), with the count of all of them",
  required: ['items', 'total', 'knowledge_base_id', 'document_id', 'file_name', 'status'],
  additionalProperties: false,
  properties: {
    items: { type: 'array', items: passageSchema },
    total: { type: 'integer', description: 'how many passages the document has, over all pages' },
    knowledge_base_id: { type: 'integer' },
    document_id: { type: 'integer' },
    file_name: { type: 'string' },
    status: { ...documentStatusSchema, description: "the document's ingestion status: its text is here once it is `completed`" },
  },
} as const;

export type DocumentPassagePage = FromSchema<typeof documentPassagePageSchema>;
