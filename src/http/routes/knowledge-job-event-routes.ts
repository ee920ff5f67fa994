/**
 * `GET /api/knowledge-bases/{id}/jobs/events`: the knowledge base's ingestion job changes as
 * server-sent events, one `data:` line of JSON per change (knowledge-job-event-schemas.ts), read
 * from the store so a job run by any process shows. Every 15 s without a change a comment line
 * keeps proxies from closing the quiet stream. A draining server ends the stream with an
 * `event: error` holding `server_shutting_down`: the client connects again, to another process.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { jobEventSchema, type JobEvent } from '../../knowledge/knowledge-job-event-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { errorBody } from '../error-rendering.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema } from '../schemas.js';

/** How long a stream may stay silent before a comment line keeps it open through proxies. */
const KEEP_ALIVE_MILLISECONDS = 15_000;

export type KnowledgeJobEventRouteServices = Pick<Services, 'knowledgeJobEvents' | 'drain'>;

function startEventStream(reply: FastifyReply, requestId: string): void {
  reply.hijack();
  // A hijacked reply skips Fastify's header sending: carry over what hooks set (security headers, CORS).
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': requestId,
    'x-content-type-options': 'nosniff',
  });
  reply.raw.write(': following the jobs\n\n');
}

export const knowledgeJobEventRoutes: FastifyPluginAsync<KnowledgeJobEventRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/knowledge-bases/:id/jobs/events',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: "Follow the knowledge base's ingestion jobs live, as server-sent events",
        description:
          'Each change of a job after the stream opened comes as one `data:` line holding a job event: `queued`, `running` with `percent` and `stage`, `completed` with `chunk_count`, `failed` with `reason`, `cancelled`. Open the stream, then list the jobs (`GET /api/knowledge-bases/{id}/jobs`) for where they stand. Changes are read from the store every `JOB_EVENTS_POLL_MS`, so jobs run by any server process show. A user may hold `JOB_EVENT_STREAMS_PER_USER_MAX` streams open per process (429 `job_event_streams_limit`). A stopping server ends the stream with `event: error` and an error body (`server_shutting_down`).',
        params: idParametersSchema,
        querystring: { type: 'object', additionalProperties: false, properties: {} },
        response: {
          200: {
            description: 'Server-sent events, one `data:` line of a job event each',
            content: { 'text/event-stream': { schema: jobEventSchema } },
          },
          ...commonErrorResponses,
          429: errorResponseSchema,
        },
      },
    },
    async (request, reply) => {
      const serverStopping = services.drain.streamsEnd;
      if (serverStopping.aborted) throw new AppError('server_shutting_down');
      // Events may come between the subscription and the headers: they wait for the headers.
      const early: string[] | undefined = [];
      let waiting: string[] | undefined = early;
      const write = (text: string): void => {
        if (waiting !== undefined) waiting.push(text);
        else if (!reply.raw.destroyed && !reply.raw.writableEnded) {
          reply.raw.write(text);
          keepAlive.refresh();
        }
      };
      const subscription = await services.knowledgeJobEvents.subscribe(callContext(request), request.params.id, (event: JobEvent) =>
        write(`data: ${JSON.stringify(event)}\n\n`),
      );
      startEventStream(reply, request.id);
      const keepAlive = setInterval(() => write(': still following\n\n'), KEEP_ALIVE_MILLISECONDS);
      waiting = undefined;
      for (const text of early) write(text);
      const end = (): void => {
        clearInterval(keepAlive);
        serverStopping.removeEventListener('abort', onServerStopping);
        subscription.close();
      };
      const onServerStopping = (): void => {
        write(`event: error\ndata: ${JSON.stringify(errorBody(new AppError('server_shutting_down'), request.id))}\n\n`);
        end();
        reply.raw.end();
      };
      serverStopping.addEventListener('abort', onServerStopping, { once: true });
      reply.raw.on('close', end);
      // The client may have left while the subscription was being made: then 'close' has already fired.
      if (reply.raw.destroyed || request.raw.socket.destroyed) end();
    },
  );
};
