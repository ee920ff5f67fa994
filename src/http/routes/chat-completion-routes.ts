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
import type { GenerationParameters } from '../../pipeline/plugin-contract/connector-definition.js';
import { normalizeMessages } from '../../pipeline/conversation/messages.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { completionResponse } from '../completion-response-schema.js';
import { clientGoneSignal, sendRun } from '../completion-responses.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';
import { idSchema } from '../../validation/shape-fragments.js';
import { passageOfSource } from '../../knowledge/source-link-service.js';
import type { SourceLinkMaker } from '../../completions/sources-block.js';
import { forwardedPersonOf } from '../front-end-headers.js';
import { ownOrigin } from '../lti/own-origin.js';

/** What the completion routes use: nothing else of the service container reaches them. */
export type ChatCompletionRouteServices = Pick<Services, 'completions' | 'drain' | 'settings' | 'frontEndPeople' | 'sourceLinks'>;

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

/**
 * Whom the request runs as: the learner a trusted front end names in its forwarded-user headers
 * (believed only when the server is told to trust them and the key is one a system admin marked
 * as a trusted front end's, permissions.ts), else the caller. From anyone else the headers are
 * ignored and they act as themselves.
 */
async function actingContext(services: ChatCompletionRouteServices, request: FastifyRequest): Promise<CallContext> {
  const context = callContext(request);
  if (!mayNameForwardedUser(context.identity, services.settings.trustForwardedUserHeaders)) return context;
  const person = forwardedPersonOf(request);
  return person === undefined ? context : services.frontEndPeople.actAs(context, person);
}

/**
 * For a trusted front-end key that asked for a "Sources" block: each Merino passage a source
 * cites links to its signed view in the web app (`/sources/{token}`), made for the person the answer is for.
 */
function sourceLinkMaker(
  services: ChatCompletionRouteServices,
  request: FastifyRequest,
  answer: AnswerOptions,
): SourceLinkMaker | undefined {
  const key = callContext(request).identity;
  if (!key.trustedFrontEnd || key.sourceLinks !== true) return undefined;
  const origin = ownOrigin(request);
  return (source) => {
    const grant = passageOfSource(source);
    if (grant === undefined) return undefined;
    const token = services.sourceLinks.sign({
      userId: answer.context.identity.userId,
      assistantId: source.assistant_id ?? answer.assistant.id,
      ...grant,
    });
    // The web app's page (web/src/routes/sources/[token]) shows it; it reads GET /api/source-links/{token}.
    return `${origin}/sources/${token}`;
  };
}

async function answer(options: AnswerOptions): Promise<FastifyReply | undefined> {
  const { services, request, reply, context, assistant, body, modelId } = options;
  const clientGone = clientGoneSignal(reply, services.drain.streamsEnd);
  const run = await services.completions.start({
    context,
    record: assistant,
    request: { messages: normalizeMessages(body.messages), parameters: generationParameters(body), wholeAnswer: body.stream !== true },
    signal: clientGone,
    sourceLinkOf: sourceLinkMaker(services, request, options),
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
        data: models.map((model) => ({
          id: model.id,
          object: 'model',
          created: model.created,
          owned_by: model.owner,
          name: model.name,
          description: model.description,
        })),
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
      const context = await actingContext(services, request);
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
      const context = await actingContext(services, request);
      const modelId = `${MODEL_ID_PREFIX}${request.query.assistant}`;
      const assistant = await services.completions.resolveModel(context, modelId);
      return answer({ services, request, reply, context, assistant, body: request.body, modelId: request.body.model ?? modelId });
    },
  );
};
