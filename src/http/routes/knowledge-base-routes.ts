/** The knowledge-bases API: create, list, read, change and share, delete, and LAMB's query contract. */
import type { FastifyPluginAsync } from 'fastify';
import {
  knowledgeBasePatchSchema,
  knowledgeBaseQuerySchema,
  knowledgeBaseViewSchema,
  newKnowledgeBaseSchema,
  queryAnswerSchema,
} from '../../knowledge/knowledge-base-schemas.js';
import type { Services } from '../../services.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';
import { pageSchema } from '../../validation/shape-fragments.js';

/** What the knowledge-base routes use: nothing else of the service container reaches them. */
export type KnowledgeBaseRouteServices = Pick<Services, 'knowledgeBases' | 'settings'>;

export const knowledgeBaseRoutes: FastifyPluginAsync<KnowledgeBaseRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post(
    '/api/knowledge-bases',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Create a knowledge base',
        body: newKnowledgeBaseSchema,
        response: { 201: knowledgeBaseViewSchema('The new knowledge base'), ...commonErrorResponses },
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
          200: pageSchema('A page of the knowledge bases you may see', knowledgeBaseViewSchema('a knowledge base')),
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
        response: { 200: knowledgeBaseViewSchema('The knowledge base'), ...commonErrorResponses },
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
        response: { 200: knowledgeBaseViewSchema('The knowledge base as changed'), ...commonErrorResponses },
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
};
