/**
 * The OpenAI-compatible endpoints (`GET /v1/models`, `POST /v1/chat/completions`) and LAMB's
 * `POST /lamb/v1/completions?assistant=<id>`, all running the same pipeline.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { CallContext } from '../../auth/call-context.js';
import { mayNameForwardedUser } from '../../auth/permissions.js';
import {
  chatCompletionBodySchema,
  lambCompletionBodySchema,
  modelListSchema,
  type CompletionBody,
} from '../../completions/completion-schemas.js';
import { MODEL_ID_PREFIX, type CompletionStart } from '../../completions/completion-service.js';
import { AppError } from '../../errors/app-error.js';
import type { GenerationParameters } from '../../pipeline/plugin-contract/connector-definition.js';
import { normalizeMessages } from '../../pipeline/conversation/messages.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { completionResponse } from '../completion-response-schema.js';
import { clientGoneSignal, sendRun } from '../completion-responses.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';
import { idSchema } from '../../validation/shape-fragments.js';

/** What the completion routes use: nothing else of the service container reaches them. */
export type ChatCompletionRouteServices = Pick<Services, 'completions' | 'drain' | 'settings'>;

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
  services: ChatCompletionRouteServices;
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

export const chatCompletionRoutes: FastifyPluginAsync<ChatCompletionRouteServices> = async (app, services) => {
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
          properties: { assistant: idSchema },
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
};
