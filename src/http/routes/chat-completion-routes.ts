/**
 * The OpenAI-compatible endpoints (`GET /v1/models`, `POST /v1/chat/completions`) and LAMB's
 * `POST /lamb/v1/completions?assistant=<id>`, all running the same pipeline.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { CallContext } from '../../auth/call-context.js';
import { mayNameForwardedUser } from '../../auth/permissions.js';
import { MODEL_ID_PREFIX, type CompletionStart } from '../../completions/completion-service.js';
import { AppError } from '../../errors/app-error.js';
import type { GenerationParameters } from '../../pipeline/plugin-contract/connector-definition.js';
import { normalizeMessages } from '../../pipeline/conversation/messages.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { clientGoneSignal, sendRun } from '../completion-responses.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';
import { sourceSchema } from '../../validation/shape-fragments.js';

/** Longest conversation accepted in one request; the body size limit bounds it too. */
const MESSAGES_MAXIMUM = 1_000;
const CONTENT_PARTS_MAXIMUM = 100;

const messageSchema = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'user', 'assistant', 'tool', 'developer'] },
    content: {
      anyOf: [
        { type: 'string' },
        { type: 'null' },
        {
          type: 'array',
          maxItems: CONTENT_PARTS_MAXIMUM,
          items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } },
        },
      ],
    },
    name: { type: 'string', maxLength: 256 },
    tool_call_id: { type: 'string', maxLength: 256 },
    tool_calls: { type: 'array' },
  },
} as const;

/**
 * LAMB's completion body: the assistant is named in the query, so `model` is optional.
 * Unknown OpenAI parameters are accepted and ignored: clients send many, and rejecting them would break them.
 */
const lambCompletionBodySchema = {
  type: 'object',
  required: ['messages'],
  additionalProperties: true,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 300 },
    messages: { type: 'array', minItems: 1, maxItems: MESSAGES_MAXIMUM, items: messageSchema },
    stream: { type: 'boolean' },
    stream_options: {
      type: ['object', 'null'],
      properties: { include_usage: { type: 'boolean' }, status_as_content: { type: 'boolean' } },
    },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    max_tokens: { type: 'integer', minimum: 1 },
    max_completion_tokens: { type: 'integer', minimum: 1 },
    stop: { anyOf: [{ type: 'string' }, { type: 'array', maxItems: 4, items: { type: 'string' } }, { type: 'null' }] },
    seed: { type: 'integer' },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] } },
    },
    user: { type: 'string', maxLength: 256 },
    n: { type: 'integer', minimum: 1, maximum: 1 },
  },
} as const;

/** OpenAI's chat completion body: the same, with `model` naming the assistant. */
const chatCompletionBodySchema = { ...lambCompletionBodySchema, required: ['model', 'messages'] } as const;

/** What either body holds once validated. */
type CompletionBody = FromSchema<typeof lambCompletionBodySchema>;

function generationParameters(body: CompletionBody): GenerationParameters {
  const parameters: GenerationParameters = {
    temperature: body.temperature,
    top_p: body.top_p,
    max_tokens: body.max_tokens ?? body.max_completion_tokens,
    stop: body.stop ?? undefined,
    seed: body.seed,
    response_format: body.response_format,
    user: body.user,
  };
  return Object.fromEntries(Object.entries(parameters).filter(([, value]) => value !== undefined));
}

/** One completion request as the routes hand it on: who asks, which assistant, what they sent. */
interface AnswerOptions {
  services: Services;
  request: FastifyRequest;
  reply: FastifyReply;
  context: CallContext;
  /** The assistant, as the completion service resolved it from the model id. */
  assistant: CompletionStart['record'];
  body: CompletionBody;
  /** The model id the answer names: exactly as the client sent it. */
  modelId: string;
}

const FORWARDED_EMAIL_HEADER = 'x-openwebui-user-email';
const EMAIL_SHAPE = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

/**
 * The learner Open WebUI names in its forwarded-user header, believed only when the server is
 * told to trust it and the request comes with a key a system admin marked as a trusted front
 * end's (permissions.ts); from anyone else the header is ignored and they act as themselves.
 */
function trustedForwardedEmail(request: FastifyRequest, context: CallContext, trusted: boolean): string | undefined {
  if (!mayNameForwardedUser(context.identity, trusted)) return undefined;
  const header = request.headers[FORWARDED_EMAIL_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const email = value.trim().toLowerCase();
  if (!EMAIL_SHAPE.test(email))
    throw new AppError('invalid_parameter', `The ${FORWARDED_EMAIL_HEADER} header is not an email address.`, {
      param: FORWARDED_EMAIL_HEADER,
    });
  return email;
}

async function answer({ services, request, reply, context, assistant, body, modelId }: AnswerOptions): Promise<FastifyReply | undefined> {
  const clientGone = clientGoneSignal(reply, services.drain.streamsEnd);
  const forwardedEmail = trustedForwardedEmail(request, context, services.settings.trustForwardedUserHeaders);
  const run = await services.completions.start({
    context,
    record: assistant,
    request: { messages: normalizeMessages(body.messages), parameters: generationParameters(body), wholeAnswer: body.stream !== true },
    signal: clientGone,
    forwardedEmail,
  });
  return sendRun({
    request,
    reply,
    run,
    stream: body.stream === true,
    statusAsContent: body.stream_options?.status_as_content,
    modelId,
    clientGone,
    serverStopping: services.drain.streamsEnd,
  });
}

/** The usage of a run; connectors may report more counts than these three. */
const usageSchema = {
  type: 'object',
  properties: { prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
  additionalProperties: true,
} as const;

/** A non-streamed answer, as openai-wire.ts writes it. */
const completionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['chat.completion'] },
    created: { type: 'integer' },
    model: { type: 'string', description: 'the model id exactly as sent' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            properties: {
              role: { type: 'string', enum: ['assistant'] },
              content: { type: 'string' },
              reasoning_content: { type: 'string', description: "the model's reasoning, when it gave any" },
            },
          },
          logprobs: { type: 'null' },
          finish_reason: { type: 'string', enum: ['stop', 'length', 'tool_calls', 'content_filter'] },
        },
      },
    },
    usage: usageSchema,
    sources: { type: 'array', items: sourceSchema },
    trace_id: { type: 'string', description: 'the id of the trace of this request (verbose assistants only)' },
  },
} as const;

export const completionResponse = {
  description: 'The answer: one chat.completion, or with `stream: true` a stream of chat.completion.chunk events ending in `data: [DONE]`',
  content: {
    'application/json': { schema: completionSchema },
    'text/event-stream': { schema: { type: 'string', description: 'server-sent events, one `data:` line of JSON each' } },
  },
} as const;

const modelListSchema = {
  type: 'object',
  description: 'The assistants you may chat with, as OpenAI models',
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'lamb_assistant.<id>' },
          object: { type: 'string', enum: ['model'] },
          created: { type: 'integer' },
          owned_by: { type: 'string' },
          name: { type: 'string' },
        },
      },
    },
  },
} as const;

export async function chatCompletionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const routes = typedRoutes(app);

  routes.get(
    '/v1/models',
    {
      schema: {
        tags: ['openai'],
        summary: 'The assistants you may chat with, as OpenAI models',
        response: { 200: modelListSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const models = await services.completions.listModels(callContext(request));
      return {
        object: 'list',
        data: models.map((model) => ({ id: model.id, object: 'model', created: model.created, owned_by: model.owner, name: model.name })),
      };
    },
  );

  routes.post(
    '/v1/chat/completions',
    {
      schema: {
        tags: ['openai'],
        summary: 'Chat with an assistant (OpenAI chat completions, streamed or not)',
        body: chatCompletionBodySchema,
        response: { 200: completionResponse, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      const model = request.body.model;
      const assistant = await services.completions.resolveModel(context, model);
      return answer({ services, request, reply, context, assistant, body: request.body, modelId: model });
    },
  );

  routes.post(
    '/lamb/v1/completions',
    {
      schema: {
        tags: ['lamb'],
        summary: 'LAMB-compatible completion for ?assistant=<id>',
        querystring: {
          type: 'object',
          required: ['assistant'],
          properties: { assistant: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } },
        },
        body: lambCompletionBodySchema,
        response: { 200: completionResponse, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      const modelId = `${MODEL_ID_PREFIX}${request.query.assistant}`;
      const assistant = await services.completions.resolveModel(context, modelId);
      return answer({ services, request, reply, context, assistant, body: request.body, modelId: request.body.model ?? modelId });
    },
  );
}
