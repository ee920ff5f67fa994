/**
 * Versions and ratings of a chat's messages (docs/chats.md): a new version of a question (its own
 * branch, answered as a message is), which branch the chat shows, the owner's thumb up or down on
 * an answer, and, for an assistant's managers, the ratings of members' answers by pseudonym.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  assistantFeedbackQuerySchema,
  assistantFeedbackSchema,
  feedbackBodySchema,
  feedbackSchema,
} from '../../chats/answer-feedback-schemas.js';
import { chatWithMessagesSchema } from '../../chats/chat-schemas.js';
import type { Services } from '../../services.js';
import { idSchema, pageSchema } from '../../validation/shape-fragments.js';
import { callContext } from '../authentication.js';
import { completionResponse } from '../completion-response-schema.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, noContentResponse, pathIdsSchema } from '../schemas.js';
import { answerTurn, statusAsContentProperty } from './chat-routes.js';

/** What these routes use: nothing else of the service container reaches them. */
export type ChatVersionRouteServices = Pick<Services, 'chats' | 'answerFeedback' | 'drain' | 'settings'>;

const messageParameters = pathIdsSchema('id', 'messageId');

export const chatVersionRoutes: FastifyPluginAsync<ChatVersionRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post(
    '/api/chats/:id/messages/:messageId/versions',
    {
      schema: {
        tags: ['chats'],
        summary: 'Edit a question of one of your chats: a new version of it starts its own branch and is answered (as POST …/messages)',
        description: 'The question edited and its answers stay, as the other version; PUT /api/chats/{id}/active-version shows them again.',
        params: messageParameters,
        body: {
          type: 'object',
          required: ['content'],
          additionalProperties: false,
          properties: {
            content: { type: 'string', minLength: 1, maxLength: services.settings.chatMessageCharactersMaximum, pattern: '\\S' },
            stream: { type: 'boolean' },
            ...statusAsContentProperty,
          },
        },
        response: { 200: completionResponse, ...commonErrorResponses, 409: errorResponseSchema },
      },
    },
    async (request, reply) => {
      const { content, stream, status_as_content: statusAsContent } = request.body;
      const target = { chatId: request.params.id, messageId: request.params.messageId };
      return answerTurn({ services, request, reply, stream, statusAsContent }, () =>
        services.chats.editQuestion(callContext(request), target, content),
      );
    },
  );

  routes.put(
    '/api/chats/:id/active-version',
    {
      schema: {
        tags: ['chats'],
        summary: 'Show another version in one of your chats: the branch through this message, then the newest version at each step',
        params: idParametersSchema,
        body: { type: 'object', required: ['message_id'], additionalProperties: false, properties: { message_id: idSchema } },
        response: { 200: chatWithMessagesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.chats.selectVersion(callContext(request), request.params.id, request.body.message_id),
  );

  routes.put(
    '/api/chats/:id/messages/:messageId/feedback',
    {
      schema: {
        tags: ['chats'],
        summary: 'Rate an answer of one of your chats: thumb up or down, with an optional comment (a new rating replaces the old)',
        params: messageParameters,
        body: feedbackBodySchema(services.settings.chatFeedbackCommentCharactersMaximum),
        response: { 200: feedbackSchema, ...commonErrorResponses },
      },
    },
    async (request) =>
      services.answerFeedback.rate(callContext(request), { chatId: request.params.id, messageId: request.params.messageId }, request.body),
  );

  routes.delete(
    '/api/chats/:id/messages/:messageId/feedback',
    {
      schema: {
        tags: ['chats'],
        summary: 'Take back your rating of an answer',
        params: messageParameters,
        response: { 204: noContentResponse('Removed'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.answerFeedback.clear(callContext(request), { chatId: request.params.id, messageId: request.params.messageId });
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/assistants/:id/feedback',
    {
      schema: {
        tags: ['chats'],
        summary:
          "Members' ratings of your assistant's answers, learners by pseudonym (only where their organization lets owners read chats)",
        params: idParametersSchema,
        description:
          "Filter by rating and by the UTC days the ratings were given or changed; each comes with the conversation that led to the answer. With the setting off, nothing is listed: a comment is the learner's own text.",
        querystring: assistantFeedbackQuerySchema(services.settings.pageSizeMaximum),
        response: { 200: pageSchema("A page of members' ratings, newest first", assistantFeedbackSchema), ...commonErrorResponses },
      },
    },
    async (request) => services.answerFeedback.ofAssistant(callContext(request), request.params.id, request.query),
  );
};
