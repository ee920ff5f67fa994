/**
 * What an assistant is made and changed from, and how its list is filtered, as JSON Schemas: the
 * routes validate requests with them and show them in the OpenAPI document, and
 * assistant-service.ts reads its input types from them, so each shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { PageQuery } from '../validation/page-query-schema.js';

/** Longest system prompt or template accepted; the body size limit bounds the whole request too. */
const PROMPT_LENGTH_MAXIMUM = 200_000;

const assistantFields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', maxLength: 10_000 },
  system_prompt: { type: 'string', maxLength: PROMPT_LENGTH_MAXIMUM },
  prompt_template: { type: 'string', maxLength: PROMPT_LENGTH_MAXIMUM },
  metadata: { type: ['object', 'string', 'null'], description: 'An object, or a JSON string of one (LAMB stores a string)' },
  rag_collections: {
    oneOf: [
      { type: 'string', maxLength: 20_000 },
      { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } },
    ],
  },
  rag_top_k: { type: 'integer', minimum: 1, maximum: 100 },
} as const;

export const newAssistantSchema = { type: 'object', properties: assistantFields, required: ['name'], additionalProperties: false } as const;

export type AssistantInput = FromSchema<typeof newAssistantSchema>;

export const assistantPatchSchema = {
  type: 'object',
  // Listed so that sending them back gets a clear "cannot be changed" instead of "unknown field".
  properties: { ...assistantFields, id: {}, owner: {}, owner_id: {}, organization_id: {} },
  additionalProperties: false,
  minProperties: 1,
} as const;

export type AssistantPatch = FromSchema<typeof assistantPatchSchema>;

/** The filters GET /api/assistants adds to a page: `orchestrator` is the multi-tool assistants that use other assistants. */
export const assistantListFilters = { type: { type: 'string', enum: ['classic', 'multi_tool', 'orchestrator'] } } as const;

export type AssistantListInput = PageQuery<typeof assistantListFilters>;
