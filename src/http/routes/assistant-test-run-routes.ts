/**
 * Test runs of an assistant (docs/assistant-tests.md, "Runs"): estimate, start, list, read, stop,
 * compare, and follow one live as server-sent events. The event stream reads the run's progress
 * from the store every TEST_RUN_EVENTS_POLL_MS, so a run executed by any process shows; it sends a
 * `progress` event whenever another case finished and one `end` event when the run ended, then
 * closes. A stopping server ends it with `event: error` (`server_shutting_down`), as the ingestion
 * job stream does.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import {
  testRunComparisonQuerySchema,
  testRunComparisonSchema,
  testRunEstimateSchema,
  testRunEventSchema,
  testRunInputSchema,
  testRunListSchema,
  testRunSchema,
  type TestRunSummaryView,
} from '../../evaluation/assistant-test-schemas.js';
import type { Services } from '../../services.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { errorBody } from '../error-rendering.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, pathIdsSchema } from '../schemas.js';

export type AssistantTestRunRouteServices = Pick<Services, 'testRuns' | 'settings' | 'drain'>;

const WHO = "For whoever manages the assistant (its owner, its organization's admins, system admins); everyone else gets 404.";

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
  reply.raw.write(': following the run\n\n');
}

interface StreamOptions {
  reply: FastifyReply;
  requestId: string;
  read: () => Promise<TestRunSummaryView>;
  pollMilliseconds: number;
  serverStopping: AbortSignal;
}

/** Polls the run until it ends, the client leaves or the server stops. */
async function streamRun(options: StreamOptions): Promise<void> {
  const { reply, requestId, read, pollMilliseconds, serverStopping } = options;
  const open = (): boolean => !reply.raw.destroyed && !reply.raw.writableEnded;
  const write = (type: 'progress' | 'end', run: TestRunSummaryView): void => {
    if (open()) reply.raw.write(`data: ${JSON.stringify({ type, run })}\n\n`);
  };
  let lastFinished = -1;
  try {
    while (open()) {
      if (serverStopping.aborted) {
        reply.raw.write(`event: error\ndata: ${JSON.stringify(errorBody(new AppError('server_shutting_down'), requestId))}\n\n`);
        break;
      }
      const run = await read();
      if (run.status !== 'running') {
        write('end', run);
        break;
      }
      if (run.finished_count !== lastFinished) write('progress', run);
      lastFinished = run.finished_count;
      await new Promise((resolve) => setTimeout(resolve, pollMilliseconds));
    }
  } catch {
    if (open()) reply.raw.write(`event: error\ndata: ${JSON.stringify(errorBody(new AppError('internal_error'), requestId))}\n\n`);
  }
  if (open()) reply.raw.end();
}

export const assistantTestRunRoutes: FastifyPluginAsync<AssistantTestRunRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);
  const runParameters = pathIdsSchema('id', 'runId');

  routes.post(
    '/api/assistants/:id/test-runs/estimate',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Estimate what a test run would cost, before starting it',
        description: `${WHO} The same body as starting a run; nothing runs. Tokens are estimated from the prompts and turns (4 characters a token, 300 tokens an answer), priced as usage reports price them.`,
        params: idParametersSchema,
        body: testRunInputSchema,
        response: { 200: { ...testRunEstimateSchema, description: 'The estimate' }, ...commonErrorResponses },
      },
    },
    async (request) => services.testRuns.estimate(callContext(request), request.params.id, request.body),
  );

  routes.post(
    '/api/assistants/:id/test-runs',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Start a test run of all cases or the chosen ones, against the saved assistant or a draft',
        description: `${WHO} The run goes on in the background (TEST_RUN_CONCURRENCY cases at once); follow it with its events or read it. A draft never changes the saved assistant. Past TEST_RUNS_RUNNING_PER_ASSISTANT_MAX running runs, 429 test_runs_limit.`,
        params: idParametersSchema,
        body: testRunInputSchema,
        response: { 201: { ...testRunSchema, description: 'The run, started' }, ...commonErrorResponses, 429: errorResponseSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await services.testRuns.start(callContext(request), request.params.id, request.body)),
  );

  routes.get(
    '/api/assistants/:id/test-runs',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: "List the assistant's test runs",
        description: WHO,
        params: idParametersSchema,
        querystring: pageBoundsQuerySchema(services.settings.pageSizeMaximum),
        response: { 200: testRunListSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.testRuns.list(callContext(request), request.params.id, request.query),
  );

  routes.get(
    '/api/assistants/:id/test-runs/compare',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Compare two runs: exactly the cases whose verdict changed, with both answers',
        description: WHO,
        params: idParametersSchema,
        querystring: testRunComparisonQuerySchema,
        response: { 200: { ...testRunComparisonSchema, description: 'The cases whose verdict changed' }, ...commonErrorResponses },
      },
    },
    async (request) => services.testRuns.compare(callContext(request), request.params.id, request.query),
  );

  routes.get(
    '/api/assistants/:id/test-runs/:runId',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Read a test run with the results of its finished cases',
        description: WHO,
        params: runParameters,
        response: { 200: { ...testRunSchema, description: 'The run with its results' }, ...commonErrorResponses },
      },
    },
    async (request) => services.testRuns.get(callContext(request), request.params.id, request.params.runId),
  );

  routes.post(
    '/api/assistants/:id/test-runs/:runId/stop',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: 'Stop a test run: cases still running are abandoned, finished results are kept',
        description: `${WHO} Stopping a run that already ended answers it as it is.`,
        params: runParameters,
        response: { 200: { ...testRunSchema, description: 'The run with its results' }, ...commonErrorResponses },
      },
    },
    async (request) => services.testRuns.stop(callContext(request), request.params.id, request.params.runId),
  );

  routes.get(
    '/api/assistants/:id/test-runs/:runId/events',
    {
      schema: {
        tags: ['assistant-tests'],
        summary: "Follow a test run's progress live, as server-sent events",
        description: `${WHO} One \`data:\` line per event: \`progress\` when more cases finished, then one \`end\`, after which the stream closes. Read from the store every TEST_RUN_EVENTS_POLL_MS.`,
        params: runParameters,
        response: {
          200: {
            description: 'Server-sent events, one `data:` line each',
            content: { 'text/event-stream': { schema: testRunEventSchema } },
          },
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const serverStopping = services.drain.streamsEnd;
      if (serverStopping.aborted) throw new AppError('server_shutting_down');
      const read = await services.testRuns.summary(callContext(request), request.params.id, request.params.runId);
      startEventStream(reply, request.id);
      await streamRun({ reply, requestId: request.id, read, pollMilliseconds: services.testRuns.pollMilliseconds, serverStopping });
    },
  );
};
