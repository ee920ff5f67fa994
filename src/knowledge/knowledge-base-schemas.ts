/**
 * What a knowledge base is made and changed from, how the API shows one, and LAMB's query and its
 * answer, as JSON Schemas: the routes validate bodies and serialize answers with them and show them
 * in the OpenAPI document, and knowledge-base-service.ts reads its input and view types from them,
 * so each shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { RETRIEVAL_MODES } from '../retrieval/chunk-ranking.js';
import { CHUNK_SIZE_MAXIMUM, CHUNK_SIZE_MINIMUM } from '../document-reading/chunking.js';
import { EMBEDDING_CONNECTORS } from '../retrieval/embedding-client.js';
import { openObjectSchema, timestampSchema } from '../validation/shape-fragments.js';

/** Chunk sizes in characters that a knowledge base may choose: the chunker's own bounds. */
const CHUNK_SIZE_RANGE = { minimum: CHUNK_SIZE_MINIMUM, maximum: CHUNK_SIZE_MAXIMUM } as const;
const QUERY_TOP_K_MAXIMUM = 100;

/**
 * A BCP-47 language tag: a 2–3 letter language, then up to four subtags (`en`, `es`, `pt-BR`,
 * `ca-ES-valencia`); null says no language. The service also checks it with Intl and stores it in
 * canonical case. Each subtag starts after a hyphen, so the pattern cannot backtrack.
 */
const languageSchema = {
  type: ['string', 'null'],
  minLength: 2,
  maxLength: 35,
  pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}$',
  description: 'the language of its material, a BCP-47 tag such as `en`, `es`, `ca` or `eu`; null or absent: not said',
} as const;

/** The entity-graph option of a knowledge base as it is set (docs/graph-search.md). */
const graphSettingSchema = {
  type: 'object',
  description:
    "Build an entity graph of its documents with the organization's small fast model, for the `graph_search` tool; off by default. " +
    'Needs a small fast model (409 `no_small_fast_model` without one); applies to documents ingested from then on.',
  required: ['enabled'],
  additionalProperties: false,
  properties: { enabled: { type: 'boolean' } },
} as const;

export const newKnowledgeBaseSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 10_000 },
    language: languageSchema,
    chunk_size: { type: 'integer', ...CHUNK_SIZE_RANGE },
    chunk_overlap: { type: 'integer', minimum: 0, maximum: CHUNK_SIZE_RANGE.maximum - 1 },
    graph: graphSettingSchema,
    embeddings: {
      type: 'object',
      description: "Also embed the chunks with this model of the organization's provider, for vector and hybrid search. Fixed at creation.",
      required: ['connector', 'model'],
      additionalProperties: false,
      properties: {
        connector: { type: 'string', enum: EMBEDDING_CONNECTORS },
        model: { type: 'string', minLength: 1, maxLength: 200 },
      },
    },
  },
} as const;

export type KnowledgeBaseInput = FromSchema<typeof newKnowledgeBaseSchema>;

export const knowledgeBasePatchSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 10_000 },
    // `organization` shares it with every member of the owner's organization.
    visibility: { type: 'string', enum: ['private', 'organization'] },
    language: languageSchema,
    graph: graphSettingSchema,
  },
} as const;

export type KnowledgeBasePatch = FromSchema<typeof knowledgeBasePatchSchema>;

/** LAMB's query of one knowledge base. */
export const knowledgeBaseQuerySchema = {
  type: 'object',
  required: ['query_text'],
  additionalProperties: false,
  properties: {
    query_text: { type: 'string', minLength: 1, maxLength: 10_000 },
    top_k: { type: 'integer', minimum: 1, maximum: QUERY_TOP_K_MAXIMUM },
    threshold: { type: 'number', minimum: 0, maximum: 1 },
    plugin_params: {
      type: 'object',
      description:
        '`mode`: `full_text`, `vector` or `hybrid` (the default when the knowledge base has embeddings). Other fields are accepted and ignored, as LAMB clients send them.',
      properties: { mode: { type: 'string', enum: RETRIEVAL_MODES } },
    },
  },
} as const;

export type QueryInput = FromSchema<typeof knowledgeBaseQuerySchema>;

/** A knowledge base as the API answers with it (knowledge-base-service.ts builds its views to this type). */
export function knowledgeBaseViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      description: { type: 'string' },
      owner: { type: 'string', description: "the owner's email" },
      organization_id: { type: 'integer' },
      visibility: { type: 'string', enum: ['private', 'organization'] },
      language: { type: ['string', 'null'], description: 'the language of its material (BCP-47); null: not said' },
      chunk_size: { type: 'integer' },
      chunk_overlap: { type: 'integer' },
      embeddings: {
        type: ['object', 'null'],
        description: 'how the chunks are embedded; null: full-text search only',
        properties: {
          connector: { type: ['string', 'null'] },
          model: { type: ['string', 'null'] },
          dimensions: { type: ['integer', 'null'], description: 'the length of its vectors; null until the first are stored' },
        },
        required: ['connector', 'model', 'dimensions'],
        additionalProperties: false,
      },
      graph: {
        type: 'object',
        description: 'its entity graph (docs/graph-search.md): whether ingestion builds it, and whether it can (a small fast model is set)',
        properties: {
          enabled: { type: 'boolean' },
          available: { type: 'boolean', description: 'false when the organization names no small fast model: no graph is built then' },
          unavailable_reason: { type: ['string', 'null'], description: 'why it is not available, in words for its owner; null when it is' },
        },
        required: ['enabled', 'available', 'unavailable_reason'],
        additionalProperties: false,
      },
      document_count: { type: 'integer' },
      chunk_count: { type: 'integer' },
      created_at: timestampSchema,
      updated_at: timestampSchema,
    },
    required: [
      'id',
      'name',
      'description',
      'owner',
      'organization_id',
      'visibility',
      'language',
      'chunk_size',
      'chunk_overlap',
      'embeddings',
      'graph',
      'document_count',
      'chunk_count',
      'created_at',
      'updated_at',
    ],
    additionalProperties: false,
  } as const;
}

export type KnowledgeBaseView = FromSchema<ReturnType<typeof knowledgeBaseViewSchema>>;

/** LAMB's query answer: the best-matching chunks, best first. */
export const queryAnswerSchema = {
  type: 'object',
  description: 'The best-matching chunks, best first',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          similarity: { type: 'number' },
          data: { type: 'string', description: "the chunk's text" },
          metadata: openObjectSchema("the chunk's metadata: file name, document id, chunk index, page, source URL and the document's own"),
        },
        required: ['similarity', 'data', 'metadata'],
        additionalProperties: false,
      },
    },
    count: { type: 'integer' },
    timing: { type: 'object', properties: { total_ms: { type: 'number' } }, required: ['total_ms'], additionalProperties: false },
    query: { type: 'string' },
    mode: { type: 'string', enum: RETRIEVAL_MODES, description: 'how the results were found' },
  },
  required: ['results', 'count', 'timing', 'query', 'mode'],
  additionalProperties: false,
} as const;

export type QueryAnswer = FromSchema<typeof queryAnswerSchema>;
