/** The knowledge-bases API: create, list, read, change and share, delete, and LAMB's query contract. */
import type { FastifyInstance } from 'fastify';
import { RETRIEVAL_MODES } from '../../retrieval/chunk-ranking.js';
import { knowledgeBasePatchSchema, knowledgeBaseQuerySchema, newKnowledgeBaseSchema } from '../../knowledge/knowledge-base-schemas.js';
import type { Services } from '../../services.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';
import { openObjectSchema, pageSchema, timestampSchema } from '../../validation/shape-fragments.js';

/** A knowledge base as src/knowledge/knowledge-base-service.ts shows it. */
function knowledgeBaseSchema(description: string) {
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
      },
      document_count: { type: 'integer' },
      chunk_count: { type: 'integer' },
      created_at: timestampSchema,
      updated_at: timestampSchema,
    },
  } as const;
}

/** LAMB's query answer. */
const queryAnswerSchema = {
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
      },
    },
    count: { type: 'integer' },
    timing: { type: 'object', properties: { total_ms: { type: 'number' } } },
    query: { type: 'string' },
    mode: { type: 'string', enum: RETRIEVAL_MODES, description: 'how the results were found' },
  },
} as const;

export async function knowledgeBaseRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const routes = typedRoutes(app);

  routes.post(
    '/api/knowledge-bases',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Create a knowledge base',
        body: newKnowledgeBaseSchema,
        response: { 201: knowledgeBaseSchema('The new knowledge base'), ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.knowledgeBases.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/knowledge-bases',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'List the knowledge bases you may see',
        querystring: pageQuerySchema(services.settings.pageSizeMaximum),
        response: {
          200: pageSchema('A page of the knowledge bases you may see', knowledgeBaseSchema('a knowledge base')),
          ...commonErrorResponses,
        },
      },
    },
    async (request) => services.knowledgeBases.list(callContext(request), request.query),
  );

  routes.get(
    '/api/knowledge-bases/:id',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Get a knowledge base',
        params: idParametersSchema,
        response: { 200: knowledgeBaseSchema('The knowledge base'), ...commonErrorResponses },
      },
    },
    async (request) => services.knowledgeBases.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/knowledge-bases/:id',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Rename, describe, or share with the organization (visibility)',
        params: idParametersSchema,
        body: knowledgeBasePatchSchema,
        response: { 200: knowledgeBaseSchema('The knowledge base as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.knowledgeBases.update(callContext(request), request.params.id, request.body),
  );

  routes.delete(
    '/api/knowledge-bases/:id',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Delete a knowledge base with its documents and chunks',
        params: idParametersSchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.knowledgeBases.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.post(
    '/api/knowledge-bases/:id/query',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: "Query a knowledge base (LAMB's contract)",
        params: idParametersSchema,
        body: knowledgeBaseQuerySchema,
        response: { 200: queryAnswerSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.knowledgeBases.query(callContext(request), request.params.id, request.body),
  );
}
