/**
 * The OpenAI-compatible endpoints (`GET /v1/models`, `POST /v1/chat/completions`) and LAMB's
 * `POST /lamb/v1/completions?assistant=<id>`, all running the same pipeline.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CallContext } from '../../auth/call-context.js';
import { mayNameForwardedUser } from '../../auth/permissions.js';
import { MODEL_ID_PREFIX, type CompletionRun } from '../../completions/completion-service.js';
import { AppError } from '../../errors/app-error.js';
import type { GenerationParameters } from '../../pipeline/connector-definition.js';
import { normalizeMessages, type IncomingChatMessage } from '../../pipeline/messages.js';
import type { AssistantRecord } from '../../store/assistants-repository.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { errorBody, toAppError } from '../error-rendering.js';
import { ChunkWriter, completionBody, gatherAnswer, newCompletionIdentity } from '../openai-wire.js';
import { commonErrorResponses } from '../schemas.js';

/** Longest conversation accepted in one request; the body size limit bounds it too. */
const MESSAGES_MAXIMUM = 1_000;
const CONTENT_PARTS_MAXIMUM = 100;

interface ChatCompletionBody extends GenerationParameters {
  model?: string;
  messages: IncomingChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean; status_as_content?: boolean };
  max_completion_tokens?: number;
  n?: number;
}

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
};

/** Unknown OpenAI parameters are accepted and ignored: clients send many, and rejecting them would break them. */
function chatCompletionSchema(modelRequired: boolean) {
  return {
    type: 'object',
    required: modelRequired ? ['model', 'messages'] : ['messages'],
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
}

function generationParameters(body: ChatCompletionBody): GenerationParameters {
  const parameters: GenerationParameters = {
    temperature: body.temperature,
    top_p: body.top_p,
    max_tokens: body.max_tokens ?? body.max_completion_tokens,
    stop: body.stop ?? undefined,
    seed: body.seed,
    response_format: body.response_format,
    user: body.user,
  };
  return Object.fromEntries(Object.entries(parameters).filter(([, value]) => value !== undefined)) as GenerationParameters;
}

async function streamAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  run: CompletionRun,
  body: ChatCompletionBody,
  modelId: string,
  clientGone: AbortSignal,
) {
  const iterator = run.events;
  // Waiting for the first event lets a failure before it become a real HTTP status.
  const first = await iterator.next();
  reply.hijack();
  // A hijacked reply skips Fastify's header sending: carry over what hooks set (security headers, CORS).
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': request.id,
    'x-content-type-options': 'nosniff',
    ...(run.traceId !== undefined && { 'x-trace-id': run.traceId }),
  });
  const writer = new ChunkWriter(reply.raw, newCompletionIdentity(modelId), {
    statusAsContent: body.stream_options?.status_as_content === true,
  });
  try {
    for (let next = first; !next.done; next = await iterator.next()) {
      if (clientGone.aborted) return;
      writer.write(next.value);
    }
    writer.done();
  } catch (error) {
    if (clientGone.aborted) return;
    const failure = toAppError(error) ?? new AppError('internal_error');
    if (failure.status >= 500 && !toAppError(error)) request.log.error({ errorName: (error as Error)?.name }, 'stream failed');
    writer.fail(errorBody(failure, request.id));
  } finally {
    // Closes the run when the client left early, so it stops and still records its usage.
    await iterator.return(undefined);
  }
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

async function answer(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  context: CallContext,
  record: AssistantRecord,
  body: ChatCompletionBody,
  modelId: string,
) {
  const clientGone = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) clientGone.abort();
  });
  const forwardedEmail = trustedForwardedEmail(request, context, services.settings.trustForwardedUserHeaders);
  const run = await services.completions.start({
    context,
    record,
    request: { messages: normalizeMessages(body.messages), parameters: generationParameters(body) },
    signal: clientGone.signal,
    forwardedEmail,
  });
  if (body.stream === true) return streamAnswer(request, reply, run, body, modelId, clientGone.signal);
  const gathered = await gatherAnswer(run.events);
  if (run.traceId !== undefined) reply.header('x-trace-id', run.traceId);
  return reply.send({
    ...completionBody(newCompletionIdentity(modelId), gathered),
    ...(run.traceId !== undefined && { trace_id: run.traceId }),
  });
}

export async function chatCompletionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get(
    '/v1/models',
    { schema: { tags: ['openai'], summary: 'The assistants you may chat with, as OpenAI models', response: commonErrorResponses } },
    async (request) => {
      const models = await services.completions.listModels(callContext(request));
      return {
        object: 'list',
        data: models.map((model) => ({ id: model.id, object: 'model', created: model.created, owned_by: model.owner, name: model.name })),
      };
    },
  );

  app.post<{ Body: ChatCompletionBody }>(
    '/v1/chat/completions',
    {
      schema: {
        tags: ['openai'],
        summary: 'Chat with an assistant (OpenAI chat completions, streamed or not)',
        body: chatCompletionSchema(true),
        response: commonErrorResponses,
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      const model = request.body.model!;
      const record = await services.completions.resolveModel(context, model);
      return answer(services, request, reply, context, record, request.body, model);
    },
  );

  app.post<{ Body: ChatCompletionBody; Querystring: { assistant: number } }>(
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
        body: chatCompletionSchema(false),
        response: commonErrorResponses,
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      const modelId = `${MODEL_ID_PREFIX}${request.query.assistant}`;
      const record = await services.completions.resolveModel(context, modelId);
      return answer(services, request, reply, context, record, request.body, request.body.model ?? modelId);
    },
  );
}
