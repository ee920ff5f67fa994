/** The assistants API: CRUD, publish, shares, assistant-tool candidates, LAMB-compatible export and import. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import type { AssistantInput, AssistantListInput, AssistantPatch } from '../../assistants/assistant-service.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses, emailSchema, idParametersSchema, pageQuerySchema } from '../schemas.js';

/** Longest system prompt or template accepted; the body size limit bounds the whole request too. */
const PROMPT_LENGTH_MAXIMUM = 200_000;
const SHARES_MAXIMUM = 1_000;

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

export async function assistantRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Body: AssistantInput }>(
    '/api/assistants',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Create an assistant',
        body: { type: 'object', properties: assistantFields, required: ['name'], additionalProperties: false },
        response: commonErrorResponses,
      },
    },
    async (request, reply) => reply.status(201).send(await services.assistants.create(callContext(request), request.body)),
  );

  app.get<{ Querystring: AssistantListInput }>(
    '/api/assistants',
    {
      schema: {
        tags: ['assistants'],
        summary: 'List the assistants you may see',
        querystring: pageQuerySchema(services.settings.pageSizeMaximum, { type: { type: 'string', enum: ['classic', 'multi_tool'] } }),
        response: commonErrorResponses,
      },
    },
    async (request) => services.assistants.list(callContext(request), request.query),
  );

  app.post<{ Body: Record<string, unknown> }>(
    '/api/assistants/import',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Import a LAMB or Merino assistant export as a new assistant',
        body: { type: 'object' },
        response: commonErrorResponses,
      },
    },
    async (request, reply) => reply.status(201).send(await services.assistants.import(callContext(request), request.body)),
  );

  app.get<{ Params: { id: number } }>(
    '/api/assistants/:id',
    { schema: { tags: ['assistants'], summary: 'Get an assistant', params: idParametersSchema, response: commonErrorResponses } },
    async (request) => services.assistants.get(callContext(request), request.params.id),
  );

  app.patch<{ Params: { id: number }; Body: AssistantPatch }>(
    '/api/assistants/:id',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Change some fields of an assistant (the owner cannot change)',
        params: idParametersSchema,
        body: {
          type: 'object',
          // Listed so that sending them back gets a clear "cannot be changed" instead of "unknown field".
          properties: { ...assistantFields, id: {}, owner: {}, owner_id: {}, organization_id: {} },
          additionalProperties: false,
          minProperties: 1,
        },
        response: commonErrorResponses,
      },
    },
    async (request) => services.assistants.update(callContext(request), request.params.id, request.body),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/assistants/:id',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Delete an assistant (soft delete)',
        params: idParametersSchema,
        response: commonErrorResponses,
      },
    },
    async (request, reply) => {
      await services.assistants.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  app.put<{ Params: { id: number }; Body: { published: boolean } }>(
    '/api/assistants/:id/publish',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Publish or unpublish an assistant to its organization',
        params: idParametersSchema,
        body: { type: 'object', properties: { published: { type: 'boolean' } }, required: ['published'], additionalProperties: false },
        response: commonErrorResponses,
      },
    },
    async (request) => services.assistants.publish(callContext(request), request.params.id, request.body.published),
  );

  app.get<{ Params: { id: number } }>(
    '/api/assistants/:id/shares',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Who the assistant is shared with',
        params: idParametersSchema,
        response: commonErrorResponses,
      },
    },
    async (request) => services.assistants.getShares(callContext(request), request.params.id),
  );

  app.put<{ Params: { id: number }; Body: { user_emails: string[] } }>(
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
        response: commonErrorResponses,
      },
    },
    async (request) => services.assistants.putShares(callContext(request), request.params.id, request.body.user_emails),
  );

  app.get<{ Params: { id: number } }>(
    '/api/assistants/:id/tool-candidates',
    {
      schema: {
        tags: ['assistants'],
        summary:
          "Which assistants this assistant's owner may use as its assistant tools (available ones first, the others with the reason)",
        params: idParametersSchema,
        response: commonErrorResponses,
      },
    },
    async (request) => services.assistants.toolCandidates(callContext(request), request.params.id),
  );

  app.get<{ Params: { id: number } }>(
    '/api/assistants/:id/export',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Export as LAMB-compatible JSON',
        params: idParametersSchema,
        response: commonErrorResponses,
      },
    },
    async (request, reply) => {
      const { document, fileName } = await services.assistants.export(callContext(request), request.params.id);
      return reply.header('content-disposition', `attachment; filename="${fileName}"`).send(document);
    },
  );
}
