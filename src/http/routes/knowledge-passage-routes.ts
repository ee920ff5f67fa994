/**
 * The routes that show a document's extracted text: a cited passage in its document, for the chat
 * page's sources, and the whole text a page of passages at a time, for the "View text" page.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  documentParametersSchema,
  documentPassagePageSchema,
  documentPassagesQuerySchema,
  passageInContextSchema,
  passageParametersSchema,
  passageQuerySchema,
} from '../../knowledge/knowledge-passage-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';

export type KnowledgePassageRouteServices = Pick<Services, 'knowledgePassages' | 'settings'>;

const READER_RULE =
  'For whoever may view the knowledge base, or may chat with the assistant named by `assistant_id` when that assistant searches this knowledge base (a learner opening a source of an answer). Anyone else gets 404.';

export const knowledgePassageRoutes: FastifyPluginAsync<KnowledgePassageRouteServices> = async (app, services) => {
  typedRoutes(app).get(
    '/api/knowledge-bases/:id/documents/:documentId/passages',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: "Read a document's extracted text, a page of passages at a time",
        description: `The passages in reading order, each with its section and page where known. ${READER_RULE}`,
        params: documentParametersSchema,
        querystring: documentPassagesQuerySchema(services.settings.pageSizeMaximum),
        response: { 200: documentPassagePageSchema, ...commonErrorResponses },
      },
    },
    async (request) =>
      services.knowledgePassages.documentPassages(callContext(request), {
        knowledgeBaseId: request.params.id,
        documentId: request.params.documentId,
        limit: request.query.limit,
        offset: request.query.offset,
        ...(request.query.assistant_id !== undefined && { assistantId: request.query.assistant_id }),
      }),
  );
  typedRoutes(app).get(
    '/api/knowledge-bases/:id/documents/:documentId/passages/:chunkIndex',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Read a passage with its neighbours in the document',
        description: READER_RULE,
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
