/**
 * The chats API (docs/chats.md): one's own kept chats, their messages answered through the same
 * pipeline and wire format as `/v1/chat/completions`, export and delete-all; and, for an
 * assistant's managers where the organization allows it, members' chats with it by pseudonym.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { chatListFilters } from '../../chats/chat-list-filters.js';
import {
  chatSchema,
  chatWithMessagesSchema,
  readableChatSchema,
  readableChatWithMessagesSchema,
  titleSchema,
} from '../../chats/chat-schemas.js';
import type { ChatExport, ChatTurn, ChatWithMessages } from '../../chats/chat-service.js';
import type { Services } from '../../services.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { completionResponse } from '../completion-response-schema.js';
import { clientGoneSignal, sendRun } from '../completion-responses.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, noContentResponse, pathIdsSchema } from '../schemas.js';
import { idSchema, openObjectSchema, pageSchema } from '../../validation/shape-fragments.js';

export const statusAsContentProperty = {
  status_as_content: {
    type: 'boolean',
    description: "write status lines into the content (as /v1's stream_options.status_as_content); absent, the assistant's setting decides",
  },
} as const;

const exportResponse = {
  description: 'All your chats with their messages, as an attachment: JSON (format=json) or a markdown document (format=markdown)',
  content: {
    'application/json': { schema: openObjectSchema('{exported_at, chats: [chat with messages]}') },
    'text/markdown': { schema: { type: 'string' } },
  },
} as const;

/** The list's query without limit's default (an export holds every chat unless told otherwise), plus the format. */
function exportQuerySchema(pageSizeMaximum: number) {
  const list = pageQuerySchema(pageSizeMaximum, chatListFilters);
  const { default: _limitDefault, ...limit } = list.properties.limit;
  const { default: _offsetDefault, ...offset } = list.properties.offset;
  return {
    ...list,
    properties: { ...list.properties, limit, offset, format: { type: 'string', enum: ['json', 'markdown'], default: 'json' } },
  } as const;
}

function exportMarkdown(exported: ChatExport): string {
  const sections = exported.chats.map((chat: ChatWithMessages) => {
    const turns = chat.messages.map((message) => {
      const who = message.role === 'user' ? 'You' : chat.assistant_name;
      const stopped = message.finish_reason === 'stopped' ? '\n\n_(stopped)_' : '';
      const versions = message.version_ids.length;
      const version = versions > 1 ? ` · version ${message.version_ids.indexOf(message.id) + 1} of ${versions}` : '';
      return `**${who}** (${message.created_at}${version}):\n\n${message.content}${stopped}`;
    });
    return [`## ${chat.title === '' ? 'Untitled chat' : chat.title}`, `_${chat.assistant_name} · ${chat.created_at}_`, ...turns].join(
      '\n\n',
    );
  });
  return [`# Merino chats`, `Exported ${exported.exported_at}`, ...sections].join('\n\n') + '\n';
}

/** What the chat routes use: nothing else of the service container reaches them. */
export type ChatRouteServices = Pick<Services, 'chats' | 'drain' | 'settings'>;

export interface TurnAnswer {
  services: Pick<ChatRouteServices, 'drain'>;
  request: FastifyRequest;
  reply: FastifyReply;
  stream: boolean | undefined;
  statusAsContent: boolean | undefined;
}

/**
 * Sends a chat turn's answer as `/v1` would. The answer belongs to the chat: the client leaving
 * ends only this reply, not the run (only Stop, its bounds or the server stopping end that).
 */
export async function answerTurn(
  { services, request, reply, stream, statusAsContent }: TurnAnswer,
  start: (signal: AbortSignal) => Promise<ChatTurn | undefined>,
): Promise<FastifyReply | undefined> {
  const serverStopping = services.drain.streamsEnd;
  const clientGone = clientGoneSignal(reply, serverStopping);
  const turn = await start(clientGone);
  if (turn === undefined) return reply.status(204).send();
  return sendRun({
    request,
    reply,
    run: turn.run,
    stream: stream === true,
    statusAsContent,
    modelId: turn.modelId,
    clientGone,
    serverStopping,
  });
}

export const chatRoutes: FastifyPluginAsync<ChatRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);
  const pageSizeMaximum = services.settings.pageSizeMaximum;

  routes.post(
    '/api/chats',
    {
      schema: {
        tags: ['chats'],
        summary: 'Start a chat with an assistant you may chat with',
        body: {
          type: 'object',
          required: ['assistant_id'],
          additionalProperties: false,
          properties: { assistant_id: idSchema, title: titleSchema },
        },
        response: { 201: chatSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.chats.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/chats',
    {
      schema: {
        tags: ['chats'],
        summary: 'Your chats, the most recently changed first; q searches titles',
        querystring: pageQuerySchema(pageSizeMaximum, chatListFilters),
        response: { 200: pageSchema('A page of your chats', chatSchema), ...commonErrorResponses },
      },
    },
    async (request) => services.chats.list(callContext(request), request.query),
  );

  routes.delete(
    '/api/chats',
    {
      schema: {
        tags: ['chats'],
        summary: 'Delete all your chats (the web app asks first)',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { confirm: { type: 'boolean', description: 'accepted and ignored: the client confirms before it asks' } },
        },
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.chats.deleteAll(callContext(request));
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/chats/export',
    {
      schema: {
        tags: ['chats'],
        summary: 'Download all your chats as JSON or markdown',
        description: 'Without `limit`, every chat; the list filters and paging narrow it when given.',
        querystring: exportQuerySchema(pageSizeMaximum),
        response: { 200: exportResponse, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { format, ...filters } = request.query;
      const exported = await services.chats.exportAll(callContext(request), filters);
      const day = exported.exported_at.slice(0, 10);
      if (format === 'markdown') {
        reply.header('content-disposition', `attachment; filename="merino-chats-${day}.md"`);
        return reply.type('text/markdown; charset=utf-8').send(exportMarkdown(exported));
      }
      reply.header('content-disposition', `attachment; filename="merino-chats-${day}.json"`);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(exported, null, 2));
    },
  );

  routes.get(
    '/api/chats/:id',
    {
      schema: {
        tags: ['chats'],
        summary: 'One of your chats with its messages',
        params: idParametersSchema,
        response: { 200: chatWithMessagesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.chats.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/chats/:id',
    {
      schema: {
        tags: ['chats'],
        summary: 'Rename one of your chats',
        params: idParametersSchema,
        body: { type: 'object', required: ['title'], additionalProperties: false, properties: { title: titleSchema } },
        response: { 200: chatSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.chats.rename(callContext(request), request.params.id, request.body.title),
  );

  routes.delete(
    '/api/chats/:id',
    {
      schema: {
        tags: ['chats'],
        summary: 'Delete one of your chats',
        params: idParametersSchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.chats.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.post(
    '/api/chats/:id/messages',
    {
      schema: {
        tags: ['chats'],
        summary: 'Ask in one of your chats: the question is kept, then answered on the whole conversation (as /v1/chat/completions)',
        params: idParametersSchema,
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
      return answerTurn({ services, request, reply, stream, statusAsContent }, () =>
        services.chats.sendMessage(callContext(request), request.params.id, content),
      );
    },
  );

  routes.post(
    '/api/chats/:id/regenerate',
    {
      schema: {
        tags: ['chats'],
        summary: 'Answer the last question of one of your chats again, replacing its answer',
        description: 'The body is a JSON object, `{}` at least.',
        params: idParametersSchema,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { stream: { type: 'boolean' }, ...statusAsContentProperty },
        },
        response: { 200: completionResponse, ...commonErrorResponses, 409: errorResponseSchema },
      },
    },
    async (request, reply) => {
      const { stream, status_as_content: statusAsContent } = request.body;
      return answerTurn({ services, request, reply, stream, statusAsContent }, () =>
        services.chats.regenerate(callContext(request), request.params.id),
      );
    },
  );

  routes.get(
    '/api/chats/:id/run',
    {
      schema: {
        tags: ['chats'],
        summary: "Rejoin one of your chats' running answer: its events so far, then live until it ends (any process, any tab)",
        description:
          "The stream of `POST /api/chats/{id}/messages` with `stream: true`, from the answer's first event. 204 when the chat has no answer running; then its messages hold the last answer.",
        params: idParametersSchema,
        querystring: { type: 'object', additionalProperties: false, properties: { ...statusAsContentProperty } },
        response: { 200: completionResponse, 204: noContentResponse('No answer is running'), ...commonErrorResponses },
      },
    },
    async (request, reply) =>
      answerTurn({ services, request, reply, stream: true, statusAsContent: request.query.status_as_content }, (signal) =>
        services.chats.followRun(callContext(request), request.params.id, signal),
      ),
  );

  routes.post(
    '/api/chats/:id/run/stop',
    {
      schema: {
        tags: ['chats'],
        summary: "Stop one of your chats' running answer, wherever it runs; answers once the partial answer is kept",
        params: idParametersSchema,
        response: { 204: noContentResponse('Stopped, or nothing was running'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.chats.stopRun(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/assistants/:id/chats',
    {
      schema: {
        tags: ['chats'],
        summary: "Members' chats with your assistant, learners by pseudonym (only where their organization lets owners read chats)",
        params: idParametersSchema,
        querystring: pageQuerySchema(pageSizeMaximum),
        response: { 200: pageSchema("A page of members' chats", readableChatSchema), ...commonErrorResponses },
      },
    },
    async (request) => services.chats.listOfAssistant(callContext(request), request.params.id, request.query),
  );

  routes.get(
    '/api/assistants/:id/chats/:chatId',
    {
      schema: {
        tags: ['chats'],
        summary: "A member's chat with your assistant, the learner by pseudonym",
        params: pathIdsSchema('id', 'chatId'),
        response: { 200: readableChatWithMessagesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.chats.getOfAssistant(callContext(request), request.params.id, request.params.chatId),
  );
};
