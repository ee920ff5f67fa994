/** The assistants API: CRUD, publish, shares, assistant-tool candidates, LAMB-compatible export and import. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import { assistantListFilters, assistantPatchSchema, newAssistantSchema } from '../../assistants/assistant-schemas.js';
import { emailSchema } from '../../auth/user-schemas.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';
import { nullableTimestampSchema, openObjectSchema, pageSchema, timestampSchema } from '../../validation/shape-fragments.js';

const SHARES_MAXIMUM = 1_000;

/**
 * An assistant as src/assistants/assistant-view.ts shows it. Who may only use it sees the summary
 * fields; who may configure it also sees the instructions, metadata and knowledge settings.
 */
function assistantViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      description: { type: 'string' },
      owner: { type: 'string', description: "the owner's email" },
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
  } as const;
}

const sharesSchema = {
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
} as const;

const toolCandidatesSchema = {
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
const conversionBodySchema = {
  type: 'object',
  properties: {
    dry_run: { type: 'boolean', description: 'true previews the conversion and writes nothing; false creates the multi-tool assistant' },
  },
  required: ['dry_run'],
  additionalProperties: false,
} as const;

const conversionPreviewSchema = {
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
const importQuerySchema = {
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

const importPreviewSchema = {
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
    },
    problems: { type: 'array', items: importProblemSchema },
  },
  required: ['assistant', 'problems'],
} as const;

export async function assistantRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const routes = typedRoutes(app);

  routes.post(
    '/api/assistants',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Create an assistant',
        body: newAssistantSchema,
        response: { 201: assistantViewSchema('The new assistant'), ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.assistants.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/assistants',
    {
      schema: {
        tags: ['assistants'],
        summary: 'List the assistants you may see',
        querystring: pageQuerySchema(services.settings.pageSizeMaximum, assistantListFilters),
        response: { 200: pageSchema('A page of the assistants you may see', assistantViewSchema('an assistant')), ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.list(callContext(request), request.query),
  );

  routes.post(
    '/api/assistants/import',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Import a LAMB or Merino assistant export as a new assistant; ?dry_run=true previews it and writes nothing',
        querystring: importQuerySchema,
        body: { type: 'object' },
        response: { 200: importPreviewSchema, 201: assistantViewSchema('The imported assistant'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      if (request.query.dry_run === true) return services.assistantTransfer.previewImport(context, request.body);
      return reply.status(201).send(await services.assistantTransfer.import(context, request.body));
    },
  );

  routes.get(
    '/api/assistants/:id',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Get an assistant',
        params: idParametersSchema,
        response: { 200: assistantViewSchema('The assistant'), ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/assistants/:id',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Change some fields of an assistant (the owner cannot change)',
        params: idParametersSchema,
        body: assistantPatchSchema,
        response: { 200: assistantViewSchema('The assistant as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.update(callContext(request), request.params.id, request.body),
  );

  routes.delete(
    '/api/assistants/:id',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Delete an assistant (soft delete)',
        params: idParametersSchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.assistants.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.put(
    '/api/assistants/:id/publish',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Publish or unpublish an assistant to its organization',
        params: idParametersSchema,
        body: { type: 'object', properties: { published: { type: 'boolean' } }, required: ['published'], additionalProperties: false },
        response: { 200: assistantViewSchema('The assistant as published or unpublished'), ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.publish(callContext(request), request.params.id, request.body.published),
  );

  routes.get(
    '/api/assistants/:id/shares',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Who the assistant is shared with',
        params: idParametersSchema,
        response: { 200: sharesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.assistantSharing.getShares(callContext(request), request.params.id),
  );

  routes.put(
    '/api/assistants/:id/shares',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Replace the set of users the assistant is shared with',
        params: idParametersSchema,
        body: {
          type: 'object',
          properties: { user_emails: { type: 'array', items: emailSchema, maxItems: SHARES_MAXIMUM } },
          required: ['user_emails'],
          additionalProperties: false,
        },
        response: { 200: sharesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.assistantSharing.putShares(callContext(request), request.params.id, request.body.user_emails),
  );

  routes.get(
    '/api/assistants/:id/tool-candidates',
    {
      schema: {
        tags: ['assistants'],
        summary:
          "Which assistants this assistant's owner may use as its assistant tools (available ones first, the others with the reason)",
        params: idParametersSchema,
        response: { 200: toolCandidatesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.toolCandidates(callContext(request), request.params.id),
  );

  routes.post(
    '/api/assistants/:id/convert',
    {
      schema: {
        tags: ['assistants'],
        summary:
          'Convert a classic assistant to multi-tool: a dry run previews; otherwise a new assistant "<name> (multi-tool)" is created and the classic one is left untouched',
        params: idParametersSchema,
        body: conversionBodySchema,
        response: {
          200: conversionPreviewSchema,
          201: assistantViewSchema('The new multi-tool assistant, owned by the caller'),
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      if (request.body.dry_run) return services.assistantConversion.previewConversion(context, request.params.id);
      return reply.status(201).send(await services.assistantConversion.convert(context, request.params.id));
    },
  );

  routes.get(
    '/api/assistants/:id/export',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Export as LAMB-compatible JSON',
        params: idParametersSchema,
        response: {
          200: openObjectSchema("The assistant as a LAMB export file (JSON, sent as an attachment); its keys follow LAMB's export format"),
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { document, fileName } = await services.assistantTransfer.export(callContext(request), request.params.id);
      return reply.header('content-disposition', `attachment; filename="${fileName}"`).send(document);
    },
  );
}
