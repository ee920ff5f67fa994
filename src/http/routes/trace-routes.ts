/** Verbose assistants' redacted traces, for their owner and the admins over them. */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';
import { openObjectSchema } from '../../validation/shape-fragments.js';

/** What the trace route uses: nothing else of the service container reaches it. */
export type TraceRouteServices = Pick<Services, 'completions'>;

export const traceRoutes: FastifyPluginAsync<TraceRouteServices> = async (app, services) => {
  typedRoutes(app).get(
    '/api/traces/:id',
    {
      schema: {
        tags: ['traces'],
        summary: "A verbose assistant's redacted trace of one request",
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
        response: {
          200: openObjectSchema('The redacted trace: identifiers, sizes, timings and markers, never contents'),
          ...commonErrorResponses,
        },
      },
    },
    async (request) => services.completions.trace(callContext(request), request.params.id),
  );
};
