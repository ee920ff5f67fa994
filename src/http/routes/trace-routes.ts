/** Verbose assistants' redacted traces, for their owner and the admins over them. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses } from '../schemas.js';

export async function traceRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: { id: string } }>(
    '/api/traces/:id',
    {
      schema: {
        tags: ['traces'],
        summary: "A verbose assistant's redacted trace of one request",
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
        response: commonErrorResponses,
      },
    },
    async (request) => services.completions.trace(callContext(request), request.params.id),
  );
}
