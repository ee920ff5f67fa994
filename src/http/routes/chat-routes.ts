/**
 * The chats API (docs/chats.md): one's own kept chats, their messages answered through the same
 * pipeline and wire format as `/v1/chat/completions`, export and delete-all; and, for an
 * assistant's managers where the organization allows it, members' chats with it by pseudonym.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { chatListFilters } from '../../chats/chat-list-filters.js';
import type { ChatExport, ChatTurn, ChatWithMessages } from '../../chats/chat-service.js';
import type { Services } from '../../services.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { clientGoneSignal, sendRun } from '../completion-responses.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, noContentResponse } from '../schemas.js';
import { openObjectSchema, pageSchema, sourceSchema, timestampSchema } from '../../validation/shape-fragments.js';
import { completionResponse } from './chat-completion-routes.js';

const TITLE_CHARACTERS_MAXIMUM = 200;
const ID_MAXIMUM = 2_147_483_647;

const chatProperties = {
  id: { type: 'integer' },
  assistant_id: { type: 'integer' },
  assistant_name: { type: 'string' },
  title: { type: 'string', description: 'empty until the first answer names the chat from its question, or the owner does' },
  created_at: timestampSchema,
  updated_at: timestampSchema,
} as const;

const chatSchema = { type: 'object', description: 'A kept chat', properties: chatProperties } as const;

const stepSchema = {
  type: 'object',
  description: 'one tool step of an answer, as its status events said it',
  properties: {
    id: { type: 'string' },
    tool: { type: 'string' },
    display_name: { type: 'string' },
    state: { type: 'string', enum: ['running', 'done', 'error'] },
    duration_ms: { type: ['integer', 'null'] },
    parent: { type: 'string' },
  },
} as const;

const messageSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    role: { type: 'string', enum: ['user', 'assistant'] },
    content: { type: 'string' },
    reasoning: { type: ['string', 'null'] },
    sources: { type: 'array', items: sourceSchema },
    steps: { type: 'array', items: stepSchema },
    usage: {
      anyOf: [
        {
          type: 'object',
          properties: { prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
          additionalProperties: true,
        },
        { type: 'null' },
      ],
    },
    finish_reason: {
      type: ['string', 'null'],
      description: "the model's finish reason; `stopped` when the learner stopped (or left) part way; null for a question",
    },
    created_at: timestampSchema,
  },
} as const;

const chatWithMessagesSchema = {
  type: 'object',
  description: 'A kept chat with its messages, oldest first',
  properties: { ...chatProperties, messages: { type: 'array', items: messageSchema } },
} as const;

const learnerProperty = {
  learner: { type: 'string', description: 'the learner by a stable pseudonym, e.g. "Learner 4f2a1c"; never their email' },
} as const;

const readableChatSchema = {
  type: 'object',
  description: "A member's chat",
  properties: { ...chatProperties, ...learnerProperty },
} as const;
const readableChatWithMessagesSchema = {
  type: 'object',
  description: "A member's chat with its messages, oldest first, the learner by pseudonym",
  properties: { ...chatWithMessagesSchema.properties, ...learnerProperty },
} as const;

const chatIdParametersSchema = idParametersSchema;

const assistantChatParametersSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1, maximum: ID_MAXIMUM },
    chatId: { type: 'integer', minimum: 1, maximum: ID_MAXIMUM },
  },
  required: ['id', 'chatId'],
} as const;

const titleSchema = { type: 'string', minLength: 1, maxLength: TITLE_CHARACTERS_MAXIMUM, pattern: '\\S' } as const;

const statusAsContentProperty = {
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
      return `**${who}** (${message.created_at}):\n\n${message.content}${stopped}`;
    });
    return [`## ${chat.title === '' ? 'Untitled chat' : chat.title}`, `_${chat.assistant_name} · ${chat.created_at}_`, ...turns].join(
      '\n\n',
    );
  });
  return [`# Merino chats`, `Exported ${exported.exported_at}`, ...sections].join('\n\n') + '\n';
}

interface TurnAnswer {
  services: Services;
  request: FastifyRequest;
  reply: FastifyReply;
  stream: boolean | undefined;
  statusAsContent: boolean | undefined;
}

/** Starts a chat turn that stops when the client leaves or the server ends its streams, and sends its answer as `/v1` would. */
async function answerTurn(
  { services, request, reply, stream, statusAsContent }: TurnAnswer,
  start: (signal: AbortSignal) => Promise<ChatTurn>,
): Promise<FastifyReply | undefined> {
  const serverStopping = services.drain.streamsEnd;
  const clientGone = clientGoneSignal(reply, serverStopping);
  const turn = await start(clientGone);
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

export async function chatRoutes(app: FastifyInstance, services: Services): Promise<void> {
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
          properties: { assistant_id: { type: 'integer', minimum: 1, maximum: ID_MAXIMUM }, title: titleSchema },
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
        params: chatIdParametersSchema,
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
        params: chatIdParametersSchema,
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
        params: chatIdParametersSchema,
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
        params: chatIdParametersSchema,
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
      return answerTurn({ services, request, reply, stream, statusAsContent }, (signal) =>
        services.chats.sendMessage(callContext(request), request.params.id, content, { signal }),
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
        params: chatIdParametersSchema,
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
      return answerTurn({ services, request, reply, stream, statusAsContent }, (signal) =>
        services.chats.regenerate(callContext(request), request.params.id, { signal }),
      );
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
        params: assistantChatParametersSchema,
        response: { 200: readableChatWithMessagesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.chats.getOfAssistant(callContext(request), request.params.id, request.params.chatId),
  );
}
