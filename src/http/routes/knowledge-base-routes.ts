/** The knowledge-bases API: create, list, read, change and share, delete, and LAMB's query contract. */
import type { FastifyInstance } from 'fastify';
import { MAXIMUM_CHUNK_SIZE, MINIMUM_CHUNK_SIZE } from '../../knowledge/chunking.js';
import { EMBEDDING_CONNECTORS } from '../../knowledge/embedding-client.js';
import { RETRIEVAL_MODES } from '../../knowledge/chunk-ranking.js';
import type { KnowledgeBaseInput, KnowledgeBasePatch, QueryInput } from '../../knowledge/knowledge-base-service.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses, idParametersSchema, pageQuerySchema } from '../schemas.js';

/** Chunk sizes in characters that a knowledge base may choose: the chunker's own bounds. */
const CHUNK_SIZE_RANGE = { minimum: MINIMUM_CHUNK_SIZE, maximum: MAXIMUM_CHUNK_SIZE } as const;
const QUERY_TOP_K_MAXIMUM = 100;

export async function knowledgeBaseRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Body: KnowledgeBaseInput }>(
    '/api/knowledge-bases',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Create a knowledge base',
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            description: { type: 'string', maxLength: 10_000 },
            chunk_size: { type: 'integer', ...CHUNK_SIZE_RANGE },
            chunk_overlap: { type: 'integer', minimum: 0, maximum: CHUNK_SIZE_RANGE.maximum - 1 },
            embeddings: {
              type: 'object',
              description:
                "Also embed the chunks with this model of the organization's provider, for vector and hybrid search. Fixed at creation.",
              required: ['connector', 'model'],
              additionalProperties: false,
              properties: {
                connector: { type: 'string', enum: EMBEDDING_CONNECTORS },
                model: { type: 'string', minLength: 1, maxLength: 200 },
              },
            },
          },
        },
        response: commonErrorResponses,
      },
    },
    async (request, reply) => reply.status(201).send(await services.knowledgeBases.create(callContext(request), request.body)),
  );

  app.get<{ Querystring: { limit: number; offset: number; q?: string } }>(
    '/api/knowledge-bases',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'List the knowledge bases you may see',
        querystring: pageQuerySchema(services.settings.pageSizeMaximum),
        response: commonErrorResponses,
      },
    },
    async (request) => services.knowledgeBases.list(callContext(request), request.query),
  );

  app.get<{ Params: { id: number } }>(
    '/api/knowledge-bases/:id',
    { schema: { tags: ['knowledge-bases'], summary: 'Get a knowledge base', params: idParametersSchema, response: commonErrorResponses } },
    async (request) => services.knowledgeBases.get(callContext(request), request.params.id),
  );

  app.patch<{ Params: { id: number }; Body: KnowledgeBasePatch }>(
    '/api/knowledge-bases/:id',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Rename, describe, or share with the organization (visibility)',
        params: idParametersSchema,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            description: { type: 'string', maxLength: 10_000 },
            visibility: { type: 'string', enum: ['private', 'organization'] },
          },
        },
        response: commonErrorResponses,
      },
    },
    async (request) => services.knowledgeBases.update(callContext(request), request.params.id, request.body),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/knowledge-bases/:id',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Delete a knowledge base with its documents and chunks',
        params: idParametersSchema,
        response: commonErrorResponses,
      },
    },
    async (request, reply) => {
      await services.knowledgeBases.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  app.post<{ Params: { id: number }; Body: QueryInput }>(
    '/api/knowledge-bases/:id/query',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: "Query a knowledge base (LAMB's contract)",
        params: idParametersSchema,
        body: {
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
        },
        response: commonErrorResponses,
      },
    },
    async (request) => services.knowledgeBases.query(callContext(request), request.params.id, request.body),
  );
}
