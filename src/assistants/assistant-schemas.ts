/**
 * What an assistant is made and changed from, how its list is filtered, and what the assistants
 * API answers, as JSON Schemas: the routes validate requests and describe answers with them in
 * the OpenAPI document, and assistant-service.ts reads its input types from them, so each shape
 * is declared once. The views the services build are pinned to these answers by
 * test/assistant-views-match-their-response-schemas.test.ts. Every property listed as required
 * is always sent.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { emailSchema } from '../auth/user-schemas.js';
import type { PageQuery } from '../validation/page-query-schema.js';
import { nullableTimestampSchema, openObjectSchema, timestampSchema } from '../validation/shape-fragments.js';

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

const SHARES_MAXIMUM = 1_000;

/**
 * An assistant as src/assistants/assistant-view.ts shows it. Who may only use it sees the summary
 * fields; who may configure it also sees the instructions, metadata and knowledge settings.
 */
export function assistantViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      description: { type: 'string' },
      owner: { type: 'string', description: "the owner's email" },
      owner_name: { type: 'string', description: "the owner's name, empty when the account has none" },
      organization_id: { type: 'integer' },
      assistant_type: { type: 'string', enum: ['classic', 'multi_tool'] },
      published: { type: 'boolean' },
      published_at: nullableTimestampSchema,
      created_at: timestampSchema,
      updated_at: timestampSchema,
      is_orchestrator: { type: 'boolean', description: 'a multi-tool assistant with at least one enabled assistant tool' },
      shared_with_caller: { type: 'boolean', description: 'whether it is shared with the caller' },
      shared_with_count: { type: 'integer', description: 'how many users it is shared with; only for who may manage its sharing' },
      allowed_actions: {
        type: 'array',
        description: 'what the caller may do with it',
        items: { type: 'string', enum: ['view', 'view_configuration', 'chat', 'update', 'delete', 'publish', 'share', 'export'] },
      },
      system_prompt: { type: 'string', description: 'only for who may configure it' },
      prompt_template: { type: 'string', description: 'only for who may configure it' },
      metadata: openObjectSchema("LAMB's assistant metadata (prompt processor, connector, model, tools); only for who may configure it"),
      rag_collections: { type: 'array', items: { type: 'string' }, description: 'knowledge-base ids; only for who may configure it' },
      rag_top_k: { type: 'integer', description: 'only for who may configure it' },
    },
    required: [
      'id',
      'name',
      'description',
      'owner',
      'owner_name',
      'organization_id',
      'assistant_type',
      'published',
      'published_at',
      'created_at',
      'updated_at',
      'is_orchestrator',
      'shared_with_caller',
      'allowed_actions',
    ],
  } as const;
}

export const sharesSchema = {
  type: 'object',
  description: 'The users the assistant is shared with',
  properties: { user_emails: { type: 'array', items: { type: 'string' } } },
  required: ['user_emails'],
} as const;

const toolCandidateSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    owner: { type: 'string' },
    available: { type: 'boolean' },
    reason: { type: 'string', description: 'why it may not be used, when it may not' },
  },
  required: ['id', 'name', 'description', 'owner', 'available'],
} as const;

export const toolCandidatesSchema = {
  type: 'object',
  description: 'Candidate assistant tools, available ones first',
  properties: {
    items: { type: 'array', items: toolCandidateSchema },
    truncated: { type: 'boolean', description: 'whether there were more candidates than listed' },
  },
  required: ['items', 'truncated'],
} as const;

/**
 * `POST /api/assistants/{id}/convert`: `dry_run` is required, so creating an assistant is always
 * an explicit choice (DESIGN §1) and an empty body is refused like every other body endpoint's.
 */
export const conversionBodySchema = {
  type: 'object',
  properties: {
    dry_run: { type: 'boolean', description: 'true previews the conversion and writes nothing; false creates the multi-tool assistant' },
  },
  required: ['dry_run'],
  additionalProperties: false,
} as const;

export const conversionPreviewSchema = {
  type: 'object',
  description: 'What the conversion would create; nothing was written',
  properties: {
    metadata: openObjectSchema('the multi-tool metadata the new assistant would get (seed 001 mapping)'),
    prompt_template: { type: 'string', description: 'the prompt template the new assistant would get' },
    log: { type: 'string', description: "seed 001 §10.7's log line of the conversion" },
  },
  required: ['metadata', 'prompt_template', 'log'],
} as const;

/** The import body stays the export document itself (LAMB's tools send it as is), so the dry run is asked for in the query. */
export const importQuerySchema = {
  type: 'object',
  properties: { dry_run: { type: 'boolean', description: 'true answers 200 with a preview and its problems, and writes nothing' } },
  additionalProperties: false,
} as const;

const importProblemSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'where in the document, e.g. metadata.tools[1].config.collections[0] or RAG_collections[0]' },
    code: {
      type: 'string',
      description:
        'missing_knowledge_base, missing_file, missing_rubric, or the error code the import would answer (e.g. invalid_metadata)',
    },
    message: { type: 'string' },
    reference: {
      type: 'string',
      description: 'the knowledge-base id, file path or rubric id that cannot be reached (missing_* problems only)',
    },
    blocking: { type: 'boolean', description: 'true when the import would be refused because of it' },
  },
  required: ['path', 'code', 'message', 'blocking'],
} as const;

export const importPreviewSchema = {
  type: 'object',
  description: 'What the import would create and its problems; nothing was written',
  properties: {
    assistant: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        assistant_type: { type: 'string', enum: ['classic', 'multi_tool'] },
        is_orchestrator: { type: 'boolean' },
        system_prompt: { type: 'string' },
        prompt_template: { type: 'string' },
        metadata: openObjectSchema('the normalised metadata the assistant would get'),
        rag_collections: { type: 'array', items: { type: 'string' } },
        rag_top_k: { type: 'integer' },
      },
      required: [
        'name',
        'description',
        'assistant_type',
        'is_orchestrator',
        'system_prompt',
        'prompt_template',
        'metadata',
        'rag_collections',
        'rag_top_k',
      ],
    },
    problems: { type: 'array', items: importProblemSchema },
  },
  required: ['assistant', 'problems'],
} as const;

/** `PUT /api/assistants/{id}/publish`: published or not. */
export const publishBodySchema = {
  type: 'object',
  properties: { published: { type: 'boolean' } },
  required: ['published'],
  additionalProperties: false,
} as const;

/** `PUT /api/assistants/{id}/shares`: the whole set of users to share with, by email. */
export const sharesBodySchema = {
  type: 'object',
  properties: { user_emails: { type: 'array', items: emailSchema, maxItems: SHARES_MAXIMUM } },
  required: ['user_emails'],
  additionalProperties: false,
} as const;
