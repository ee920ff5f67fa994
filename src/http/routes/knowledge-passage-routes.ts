/** The route that shows a cited knowledge-base passage in its document, for the chat page's sources. */
import type { FastifyPluginAsync } from 'fastify';
import { passageInContextSchema, passageParametersSchema, passageQuerySchema } from '../../knowledge/knowledge-passage-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';

export type KnowledgePassageRouteServices = Pick<Services, 'knowledgePassages'>;

export const knowledgePassageRoutes: FastifyPluginAsync<KnowledgePassageRouteServices> = async (app, services) => {
  typedRoutes(app).get(
    '/api/knowledge-bases/:id/documents/:documentId/passages/:chunkIndex',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Read a passage with its neighbours in the document',
        description:
          'For whoever may view the knowledge base, or may chat with the assistant named by `assistant_id` when that assistant searches this knowledge base (a learner opening a source of an answer). Anyone else gets 404.',
        params: passageParametersSchema,
        querystring: passageQuerySchema,
        response: { 200: passageInContextSchema, ...commonErrorResponses },
      },
    },
    async (request) =>
      services.knowledgePassages.passageInContext(callContext(request), {
        knowledgeBaseId: request.params.id,
        documentId: request.params.documentId,
        chunkIndex: request.params.chunkIndex,
        ...(request.query.assistant_id !== undefined && { assistantId: request.query.assistant_id }),
      }),
  );
};
